#!/usr/bin/env bash
# One-command aztables demo: check/install dependencies, build the quickstart example,
# start a private Azurite table emulator on a free port and run quickstart against it.
#
#   examples/run.sh [QUICKSTART_ARGS...]     # works from any cwd
#
# Environment:
#   AZTABLES_EXAMPLES_BUILD_DIR  build directory (default: build/examples)
#   AZTABLES_CMAKE_ARGS          extra cmake arguments (word-split)
#
# Exit status: quickstart's exit status (or non-zero if the build/emulator failed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR="${AZTABLES_EXAMPLES_BUILD_DIR:-build/examples}"
EXTRA_CMAKE_ARGS=()
if [[ -n "${AZTABLES_CMAKE_ARGS:-}" ]]; then
    read -r -a EXTRA_CMAKE_ARGS <<<"$AZTABLES_CMAKE_ARGS"
fi
STATE_DIR="$BUILD_DIR/azurite-state"
AZURITE_STARTED=0

# shellcheck disable=SC2317  # only called from the EXIT trap
stop_azurite() {
    if ((AZURITE_STARTED)); then
        "$ROOT/tests/azurite.sh" stop "$STATE_DIR" || true
        AZURITE_STARTED=0
    fi
}
trap stop_azurite EXIT
trap 'echo "examples/run.sh: interrupted" >&2; exit 130' INT
trap 'echo "examples/run.sh: terminated" >&2; exit 143' TERM

bash "$ROOT/tests/deps.sh"

echo "==> configure + build quickstart ($BUILD_DIR)"
cmake -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAZTABLES_BUILD_EXAMPLES=ON \
    -DAZTABLES_BUILD_TESTS=OFF \
    "${EXTRA_CMAKE_ARGS[@]}"
cmake --build "$BUILD_DIR" --target quickstart -j"$(nproc 2>/dev/null || echo 2)"

# Locate the binary: the usual place first, then anywhere in the build tree
# (multi-config generators put it in a per-config subdirectory).
QUICKSTART="$BUILD_DIR/examples/quickstart"
if [[ ! -x "$QUICKSTART" || -d "$QUICKSTART" ]]; then
    QUICKSTART="$(find "$BUILD_DIR" -type f -name quickstart -perm -u+x -not -path '*/CMakeFiles/*' 2>/dev/null | head -n 1)"
fi
if [[ -z "$QUICKSTART" || ! -x "$QUICKSTART" ]]; then
    echo "examples/run.sh: built target 'quickstart' but cannot find its binary under $BUILD_DIR" >&2
    exit 1
fi

echo "==> start Azurite ($STATE_DIR)"
AZURITE_STARTED=1
"$ROOT/tests/azurite.sh" start "$STATE_DIR" >/dev/null || {
    AZURITE_STARTED=0
    exit 1
}
eval "$("$ROOT/tests/azurite.sh" env "$STATE_DIR")"
export AZTABLES_CONNECTION_STRING="$AZTABLES_TEST_CONNECTION_STRING"
echo "Azurite table endpoint: $AZTABLES_TEST_ENDPOINT"

echo "==> $QUICKSTART $*"
rc=0
"$QUICKSTART" "$@" || rc=$?
echo "==> quickstart exited with status $rc"
exit "$rc"
