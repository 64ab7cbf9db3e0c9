#!/usr/bin/env bash
# aztables CI entry point: install/check dependencies, then for each stage configure,
# build, start a private Azurite (free port) and run ctest against it.
#
#   tests/run.sh [CTEST_ARGS...]        # works from any cwd; CTEST_ARGS go to every ctest run
#
# Environment:
#   AZTABLES_BUILD_DIR   build directory of the main stage (default: build/ci); other
#                        stages use "$AZTABLES_BUILD_DIR-<stage>"
#   AZTABLES_CMAKE_ARGS  extra cmake arguments appended to every stage's configure
#                        (word-split; e.g. "-DCMAKE_CXX_STANDARD=20")
#   AZTABLES_STAGES      space-separated stage names to run (default: all)
#   AZTABLES_AZURITE_DEBUG=1  also write Azurite's per-request debug log
#
# Exit status: 0 if every stage passed, else the status of the first failing step
# (ctest's exit code when the tests fail).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_BASE="${AZTABLES_BUILD_DIR:-build/ci}"
EXTRA_CMAKE_ARGS=()
if [[ -n "${AZTABLES_CMAKE_ARGS:-}" ]]; then
    read -r -a EXTRA_CMAKE_ARGS <<<"$AZTABLES_CMAKE_ARGS"
fi
CTEST_EXTRA_ARGS=("$@")
JOBS="$(nproc 2>/dev/null || echo 2)"

ACTIVE_AZURITE="" # STATE_DIR of the Azurite currently running (stopped by the EXIT trap)
STAGE_LINES=()
OVERALL_RC=0

say() { printf '\n==> %s\n' "$*"; }

stop_azurite() {
    if [[ -n "$ACTIVE_AZURITE" ]]; then
        "$ROOT/tests/azurite.sh" stop "$ACTIVE_AZURITE" || true
        ACTIVE_AZURITE=""
    fi
}
trap stop_azurite EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT
trap 'echo "run.sh: terminated" >&2; exit 143' TERM

# record NAME STATUS RC SECONDS DIR
record() {
    STAGE_LINES+=("$(printf '  %-12s %-28s exit %-3s %5ss  %s' "$1" "$2" "$3" "$4" "$5")")
    if (($3 != 0 && OVERALL_RC == 0)); then
        OVERALL_RC=$3
    fi
}

stage_selected() {
    [[ -z "${AZTABLES_STAGES:-}" ]] && return 0
    local s
    for s in $AZTABLES_STAGES; do
        [[ "$s" == "$1" ]] && return 0
    done
    return 1
}

# build_and_test NAME [CMAKE_ARGS...]
#   Configures "$BUILD_BASE" (NAME=main) or "$BUILD_BASE-NAME" with the common options,
#   the given CMAKE_ARGS and then $AZTABLES_CMAKE_ARGS (later -D wins), builds, starts
#   Azurite in <build>/azurite-state and runs ctest. Never aborts the script: the result
#   is recorded for the summary so later stages still run.
#   Test builds are Debug (-O0 -g): measured here, a test file compiles in about half
#   the time of -O2 -g, which keeps CI on two cores inside its budget; the benchmarks
#   set their own optimisation flags.
build_and_test() {
    local name="$1"
    shift
    stage_selected "$name" || return 0
    local dir="$BUILD_BASE"
    [[ "$name" == "main" ]] || dir="$BUILD_BASE-$name"
    local start=$SECONDS rc=0

    say "[$name] configure ($dir)"
    cmake -S "$ROOT" -B "$dir" \
        -DCMAKE_BUILD_TYPE=Debug \
        -DAZTABLES_BUILD_TESTS=ON \
        -DAZTABLES_BUILD_EXAMPLES=ON \
        -DAZTABLES_WERROR=ON \
        "$@" "${EXTRA_CMAKE_ARGS[@]}" || rc=$?
    if ((rc != 0)); then
        record "$name" "FAIL (configure)" "$rc" $((SECONDS - start)) "$dir"
        return 0
    fi

    say "[$name] build (-j$JOBS)"
    cmake --build "$dir" -j"$JOBS" || rc=$?
    if ((rc != 0)); then
        record "$name" "FAIL (build)" "$rc" $((SECONDS - start)) "$dir"
        return 0
    fi

    say "[$name] start Azurite ($dir/azurite-state)"
    ACTIVE_AZURITE="$dir/azurite-state"
    "$ROOT/tests/azurite.sh" start "$ACTIVE_AZURITE" >/dev/null || rc=$?
    if ((rc != 0)); then
        ACTIVE_AZURITE=""
        record "$name" "FAIL (azurite start)" "$rc" $((SECONDS - start)) "$dir"
        return 0
    fi
    eval "$("$ROOT/tests/azurite.sh" env "$ACTIVE_AZURITE")"
    echo "Azurite table endpoint: $AZTABLES_TEST_ENDPOINT (log: $ACTIVE_AZURITE/azurite.log)"

    say "[$name] ctest"
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -j2 "${CTEST_EXTRA_ARGS[@]}" || rc=$?

    if ! "$ROOT/tests/azurite.sh" status "$ACTIVE_AZURITE"; then
        stop_azurite
        ((rc != 0)) || rc=1
        record "$name" "FAIL (Azurite died)" "$rc" $((SECONDS - start)) "$dir"
        echo "run.sh: [$name] Azurite died during the tests; see $dir/azurite-state/azurite.log" >&2
        return 0
    fi
    stop_azurite

    if ((rc == 0)); then
        record "$name" "PASS" 0 $((SECONDS - start)) "$dir"
    else
        record "$name" "FAIL (ctest)" "$rc" $((SECONDS - start)) "$dir"
        echo "run.sh: [$name] ctest failed (exit $rc); Azurite log: $dir/azurite-state/azurite.log" >&2
    fi
}

# command_stage NAME CMD...
#   Runs CMD (no build dir, no Azurite) as a stage recorded in the summary.
command_stage() {
    local name="$1"
    shift
    stage_selected "$name" || return 0
    local start=$SECONDS rc=0
    say "[$name] $*"
    "$@" || rc=$?
    if ((rc == 0)); then
        record "$name" "PASS" 0 $((SECONDS - start)) "-"
    else
        record "$name" "FAIL" "$rc" $((SECONDS - start)) "-"
    fi
}

say "dependencies"
bash "$ROOT/tests/deps.sh"

# ---- stages (one line each) ------------------------------------------------------
# C++17: everything, + bench_smoke (the benchmark suite once, short, built unoptimised:
# it judges no ratios here).
build_and_test main -DAZTABLES_BUILD_BENCHMARKS=ON -DAZTABLES_BENCH_OPTIMIZE=OFF -DAZTABLES_TESTS_CXX20_COPY=OFF
# C++20 and ASan+UBSan (-fno-sanitize-recover=all): unit + Azurite tests again, own build and Azurite.
build_and_test asan -DAZTABLES_SANITIZE=ON -DAZTABLES_BUILD_EXAMPLES=OFF -DCMAKE_CXX_STANDARD=20
# libFuzzer targets (clang), each for AZTABLES_FUZZ_SECONDS (default 15 here, 60 in tests/fuzz/run.sh).
command_stage fuzz env AZTABLES_FUZZ_SECONDS="${AZTABLES_FUZZ_SECONDS:-15}" AZTABLES_FUZZ_BUILD_DIR="$BUILD_BASE-fuzz" "$ROOT/tests/fuzz/run.sh"
# -------------------------------------------------------------------------------

echo
echo "==== aztables CI summary ===="
if ((${#STAGE_LINES[@]} == 0)); then
    echo "  (no stage selected; AZTABLES_STAGES='${AZTABLES_STAGES:-}')"
    OVERALL_RC=1
else
    printf '%s\n' "${STAGE_LINES[@]}"
fi
if ((OVERALL_RC == 0)); then
    echo "==== RESULT: PASS ===="
else
    echo "==== RESULT: FAIL (exit $OVERALL_RC) ===="
fi
exit "$OVERALL_RC"
