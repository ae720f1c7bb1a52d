"""Reads a JMH JSON result and prints the rows of a comparison table, as plain aligned text or as
markdown (shared by storage_table.py and micro_table.py)."""
import json
import sys


def read_args(argv, usage):
    """(JMH entries, markdown?) from `SCRIPT RESULT.json [--markdown]`; None after printing usage."""
    if len(argv) < 2:
        print(usage, file=sys.stderr)
        return None
    with open(argv[1]) as f:
        return json.load(f), "--markdown" in argv[2:]


def print_table(header, rows, markdown, left=("op", "unit")):
    """Columns named in `left` (and the first) stay left-aligned in markdown; the rest align right."""
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---:" if i > 0 and h not in left else "---" for i, h in enumerate(header)) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
        print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
        for r in rows:
            print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
