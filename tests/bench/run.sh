#!/usr/bin/env bash
# Builds the benchmark suite with optimisation and runs it: every row prints
# ours, the baseline (measured in the same run, interleaved), the ratio, the
# target and PASS/FAIL; results also go to JSON.
#
#   tests/bench/run.sh [--quick] [--only IDS] [--arch "FLAGS"] [--build-dir DIR] [--no-azurite]
#
#   --quick          5 rounds instead of 15 (a few minutes less)
#   --only IDS       comma-separated row ids or prefixes: 1,2,3a,5,...
#   --arch "FLAGS"   architecture flags for the build, e.g. "-march=native" or
#                    "-march=x86-64-v3 -mpclmul" (default: none, as most builds)
#   --build-dir DIR  default build/bench (its own CMake build, Release)
#   --no-azurite     skip row 6 (bulk ingest) instead of starting an Azurite
#
# Results: DIR/bench-results.json (tests/bench/report.py turns it into the
# README's markdown table). Instruction counts: tests/bench/callgrind.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

BUILD="build/bench"
ARCH=""
MODE=()
ONLY=()
AZURITE=1
while (($#)); do
    case "$1" in
        --quick) MODE=(--quick) ;;
        --only) ONLY=(--only "$2"); shift ;;
        --arch) ARCH="$2"; shift ;;
        --build-dir) BUILD="$2"; shift ;;
        --no-azurite) AZURITE=0 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

echo "==> configure $BUILD (Release${ARCH:+, $ARCH})"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DAZTABLES_BUILD_BENCHMARKS=ON \
    -DAZTABLES_BUILD_TESTS=OFF -DAZTABLES_BUILD_EXAMPLES=OFF -DAZTABLES_WERROR=ON \
    "-DAZTABLES_BENCH_ARCH=$ARCH" >/dev/null
echo "==> build aztables_bench"
cmake --build "$BUILD" -j"$(nproc 2>/dev/null || echo 2)" --target aztables_bench
[[ -n "${AZTABLES_BENCH_BUILD_ONLY:-}" ]] && exit 0

# Row 6 needs an Azurite: a private one on a free port, stopped on exit.
wants_row6=1
if ((${#ONLY[@]})); then
    wants_row6=0
    IFS=',' read -r -a ids <<<"${ONLY[1]}"
    for id in "${ids[@]}"; do [[ "$id" == 6* ]] && wants_row6=1; done
fi
AZ_STATE=""
cleanup() { [[ -n "$AZ_STATE" ]] && "$ROOT/tests/azurite.sh" stop "$AZ_STATE" >/dev/null 2>&1 || true; }
trap cleanup EXIT
if ((AZURITE && wants_row6)); then
    AZ_STATE="$BUILD/azurite-state"
    echo "==> start Azurite ($AZ_STATE)"
    if "$ROOT/tests/azurite.sh" start "$AZ_STATE" >/dev/null; then
        eval "$("$ROOT/tests/azurite.sh" env "$AZ_STATE")"
    else
        echo "run.sh: could not start Azurite (tests/deps.sh installs it); row 6 will be skipped" >&2
        AZ_STATE=""
    fi
else
    unset AZTABLES_TEST_CONNECTION_STRING AZTABLES_TEST_AZURITE_PID
fi

echo "==> run"
"$BUILD/tests/bench/aztables_bench" "${MODE[@]}" "${ONLY[@]}" --json "$BUILD/bench-results.json"
