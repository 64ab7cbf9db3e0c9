#!/usr/bin/env python3
"""Renders a benchmark results JSON (tests/bench/run.sh writes one) as the
markdown table used in the README's Performance section.

    tests/bench/report.py build/bench/bench-results.json
"""
import json
import sys


def main(path):
    with open(path) as f:
        r = json.load(f)
    print(f"Measured {r['date'][:10]} on {r['cpu']} (2 shared cores; load average at start "
          f"{r['load_average'].split()[0]}), {r['compiler']}, `{r['flags']}`, simdjson On-Demand compiled for "
          f"`{r['simdjson_builtin']}` with `{r['simdjson_active']}` picked at run time; {r['mode']} mode.")
    print()
    print("| row | benchmark | ours | baseline | ratio | target | result |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- |")
    for row in r["rows"]:
        ratio = f"{row['ratio']:.2f}x" if row["ratio"] else "-"
        note = f" ({row['note']})" if row.get("note") else ""
        print(f"| {row['id']} | {row['title']}{note} | {row['ours_display']} | {row['baseline_display']} | "
              f"{ratio} | {row['target_text']} | {row['status']} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/bench/bench-results.json")
