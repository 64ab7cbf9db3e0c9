#!/usr/bin/env bash
# Instructions per operation for benchmark rows 1-5 under callgrind: stable
# across machine load, so fit for regression tracking (the timed suite's
# ratios are the claims; these are the trend).
#
#   tests/bench/callgrind.sh [BUILD_DIR] [ROWS]     # default build/bench, rows 1,2,3,4,5
#
# Builds aztables_bench if needed (via run.sh's configure), runs each side of
# each row N times between callgrind zero/dump client requests, and prints
# instructions per operation for ours and the baseline, and their ratio.
# Environment: AZTABLES_CALLGRIND_N (default 20 iterations per side).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build/bench}"
ROWS="${2:-1,2,3,4,5}"
N="${AZTABLES_CALLGRIND_N:-20}"

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
if [[ ! -x "$BUILD/tests/bench/aztables_bench" ]]; then
    AZTABLES_BENCH_BUILD_ONLY=1 "$ROOT/tests/bench/run.sh" --build-dir "$BUILD"
fi
OUT="$BUILD/callgrind"
rm -rf "$OUT"
mkdir -p "$OUT"
echo "callgrind: rows $ROWS, $N iterations per side (build: $BUILD)"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/cg.%p" \
    "$BUILD/tests/bench/aztables_bench" --callgrind "$N" --only "$ROWS" >"$OUT/bench.log" 2>"$OUT/valgrind.log" || {
    echo "callgrind.sh: the run failed; see $OUT/bench.log and $OUT/valgrind.log" >&2
    tail -20 "$OUT/valgrind.log" >&2
    exit 1
}

# Each dump file names its section ("1c ours x20") and its instruction total.
python3 - "$OUT" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
sections = {}
for f in sorted(glob.glob(os.path.join(out, "cg.*"))):
    desc = total = None
    with open(f, errors="replace") as fh:
        for line in fh:
            if line.startswith("desc: Trigger: Client Request: "):
                desc = line[len("desc: Trigger: Client Request: "):].strip()
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = max(total or 0, int(line.split()[1]))
    if desc and total is not None:
        m = re.match(r"(\S+) (ours|baseline) x(\d+)$", desc)
        if m:
            sections.setdefault(m.group(1), {})[m.group(2)] = total / int(m.group(3))
def key(k):
    m = re.match(r"(\d+)(.*)", k)
    return (int(m.group(1)), m.group(2)) if m else (999, k)
print(f"{'row':<5} {'ours instr/op':>16} {'baseline instr/op':>18} {'ratio':>8}")
rows = []
for k in sorted(sections, key=key):
    s = sections[k]
    o, b = s.get("ours"), s.get("baseline")
    ratio = (b / o) if o and b else None
    print(f"{k:<5} {o or 0:>16,.0f} {b or 0:>18,.0f} {ratio if ratio else 0:>7.2f}x")
    rows.append({"id": k, "ours_instructions_per_op": o, "baseline_instructions_per_op": b, "ratio": ratio})
with open(os.path.join(out, "callgrind.json"), "w") as fh:
    json.dump({"rows": rows}, fh, indent=2)
print(f"\nwritten: {os.path.join(out, 'callgrind.json')}  (ratio = baseline / ours instructions)")
PY
