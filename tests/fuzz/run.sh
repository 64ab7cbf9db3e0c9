#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, -fno-sanitize-recover=all)
# and runs each for a bounded time from the seed corpus in tests/fuzz/corpus/.
# Fails on any crash, leak, timeout, out-of-memory or sanitizer report; the
# input that triggered it is kept in <build>/artifacts/<target>/ and printed.
#
#   tests/fuzz/run.sh [TARGET...]         # default: every target
#
# Environment:
#   AZTABLES_FUZZ_SECONDS    seconds per target (default 60)
#   AZTABLES_FUZZ_BUILD_DIR  build directory (default build/fuzz)
#   AZTABLES_FUZZ_JOBS       targets run at once (default: nproc)
#   CXX                      the clang++ to use (default clang++, else clang++-14)
#
# The seed corpus is never modified: each run works on a copy in
# <build>/corpus/<target>/ (new inputs found accumulate there between runs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECONDS_PER_TARGET="${AZTABLES_FUZZ_SECONDS:-60}"
BUILD="${AZTABLES_FUZZ_BUILD_DIR:-$ROOT/build/fuzz}"
JOBS="${AZTABLES_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"

CXX_BIN="${CXX:-}"
if [[ -z "$CXX_BIN" || "$CXX_BIN" != *clang* ]]; then
    CXX_BIN="$(command -v clang++ || command -v clang++-14 || true)"
fi
[[ -n "$CXX_BIN" ]] || { echo "fuzz/run.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }

echo "==> fuzz: configure + build ($BUILD, $CXX_BIN)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_BUILD_TYPE=None \
    -DAZTABLES_BUILD_FUZZERS=ON -DAZTABLES_BUILD_TESTS=OFF -DAZTABLES_BUILD_EXAMPLES=OFF \
    -DAZTABLES_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$BUILD" -j"$JOBS"

read -r -a ALL <<<"$(tr ';' ' ' <"$BUILD/tests/fuzz/targets.txt")"
TARGETS=("$@")
((${#TARGETS[@]} > 0)) || TARGETS=("${ALL[@]}")

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# run_one TARGET: runs the target for SECONDS_PER_TARGET; output in <build>/logs/TARGET.log
run_one() {
    local t="$1"
    local seeds="$ROOT/tests/fuzz/corpus/$t" work="$BUILD/corpus/$t" art="$BUILD/artifacts/$t/"
    mkdir -p "$work" "$art"
    [[ -d "$seeds" ]] || { echo "fuzz/run.sh: no seed corpus $seeds" >&2; return 1; }
    "$BUILD/tests/fuzz/$t" "$work" "$seeds" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$art" -print_final_stats=1 >"$BUILD/logs/$t.log" 2>&1
}

mkdir -p "$BUILD/logs"
echo "==> fuzz: ${#TARGETS[@]} targets x ${SECONDS_PER_TARGET}s, $JOBS at a time"
declare -A PIDS=()
FAILED=()
wait_one() {
    local pid t rc
    while :; do
        for t in "${!PIDS[@]}"; do
            pid="${PIDS[$t]}"
            if ! kill -0 "$pid" 2>/dev/null; then
                rc=0
                wait "$pid" || rc=$?
                unset "PIDS[$t]"
                local execs
                execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$BUILD/logs/$t.log" | grep -o '[0-9]*$' || echo '?')"
                if ((rc == 0)); then
                    printf '  %-26s ok    %s execs\n' "$t" "$execs"
                else
                    printf '  %-26s FAIL  exit %s (log: %s)\n' "$t" "$rc" "$BUILD/logs/$t.log"
                    FAILED+=("$t")
                fi
                return 0
            fi
        done
        sleep 1
    done
}
for t in "${TARGETS[@]}"; do
    while ((${#PIDS[@]} >= JOBS)); do wait_one; done
    run_one "$t" &
    PIDS[$t]=$!
done
while ((${#PIDS[@]} > 0)); do wait_one; done

if ((${#FAILED[@]} > 0)); then
    for t in "${FAILED[@]}"; do
        echo
        echo "==== $t: last lines of $BUILD/logs/$t.log ===="
        tail -n 60 "$BUILD/logs/$t.log"
        echo "artifacts: $(ls "$BUILD/artifacts/$t/" 2>/dev/null | tr '\n' ' ')"
    done
    echo "==> fuzz: FAIL (${FAILED[*]})"
    exit 1
fi
echo "==> fuzz: PASS"
