#!/usr/bin/env python3
"""Prints Brook vs raw Chronicle records/s from a JMH JSON result of the Storage* benchmarks.

Usage: python3 perf/storage_table.py perf/results/storage.json [--markdown]

Append: records/s is the `records` secondary metric (an @AuxCounters counter: batchSize per call).
Read: records/s is the primary score (@OperationsPerInvocation(500)).
Goal: Brook >= 50 % of raw Chronicle per record.
"""
import sys

from jmh_table import print_table, read_args

GOAL = 0.50

# benchmark method -> (operation, side)
METHODS = {
    "brookAppend": ("append", "brook"),
    "rawAppend": ("append", "raw"),
    "brookRead": ("read", "brook"),
    "rawRead": ("read", "raw"),
}


def records_per_second(entry):
    secondary = entry.get("secondaryMetrics", {})
    m = secondary["records"] if "records" in secondary else entry["primaryMetric"]
    return m["score"], m.get("scoreError", float("nan"))


def main(argv):
    args = read_args(argv, __doc__)
    if args is None:
        return 2
    entries, markdown = args
    rows = {}
    for e in entries:
        method = e["benchmark"].rsplit(".", 1)[-1]
        if method not in METHODS:
            continue
        op, side = METHODS[method]
        params = e.get("params", {})
        size = int(params.get("recordSize", 0))
        # Reads go over logs written in batches of 100 (StorageReadBenchmark.WRITE_BATCH).
        batch = int(params.get("batchSize", 100))
        rows.setdefault((op, size, batch), {})[side] = records_per_second(e)

    header = ["op", "record B", "batch", "Brook rec/s", "raw rec/s", "Brook/raw", ">= 50 %"]
    table = []
    for (op, size, batch) in sorted(rows, key=lambda k: (k[0] != "append", k[1], k[2])):
        sides = rows[(op, size, batch)]
        brook, raw = sides.get("brook"), sides.get("raw")
        fmt = lambda v: "-" if v is None else f"{v[0]:,.0f} ± {v[1]:,.0f}"
        if brook and raw and raw[0] > 0:
            ratio = brook[0] / raw[0]
            ratio_s, meets = f"{ratio * 100:.0f} %", ("yes" if ratio >= GOAL else "NO")
        else:
            ratio_s, meets = "-", "-"
        batch_s = f"{batch} (written)" if op == "read" else str(batch)
        table.append([op, str(size), batch_s, fmt(brook), fmt(raw), ratio_s, meets])

    print_table(header, table, markdown, left=("op",))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
