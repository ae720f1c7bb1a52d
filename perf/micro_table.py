#!/usr/bin/env python3
"""Prints Brook vs Kafka from a JMH JSON result of CodecBenchmark and PartitionerBenchmark.

Usage: python3 perf/micro_table.py perf/results/micro.json [--markdown]

Codec rows: records/s, the `records` secondary metric (an @AuxCounters counter: batchSize per call).
Partitioner rows: keys/s, the primary score (one key per call).
Both encodings of Brook (the broker's storage batch, the Java client's produce request) are set
against the same Kafka row: MemoryRecordsBuilder is what Kafka's producer runs, and its broker
keeps that batch as is.
"""
import sys

from jmh_table import print_table, read_args

# op -> (Brook method, Kafka method, unit)
OPS = [
    ("encode (storage batch)", "brookEncode", "kafkaEncode", "records/s"),
    ("encode (client produce)", "brookClientEncode", "kafkaEncode", "records/s"),
    ("decode + CRC", "brookDecode", "kafkaDecode", "records/s"),
    ("partition (keyed)", "brookPartition", "kafkaPartition", "keys/s"),
]


def rate(entry):
    secondary = entry.get("secondaryMetrics", {})
    m = secondary["records"] if "records" in secondary else entry["primaryMetric"]
    return float(m["score"]), float(m.get("scoreError", "NaN"))  # JMH writes "NaN" for one iteration


def main(argv):
    args = read_args(argv, __doc__)
    if args is None:
        return 2
    entries, markdown = args
    # (method, size, batch) -> (score, error); size is recordSize or keySize, batch "-" for keys
    results = {}
    for e in entries:
        method = e["benchmark"].rsplit(".", 1)[-1]
        params = e.get("params", {})
        if "keySize" in params:
            key = (method, int(params["keySize"]), "-")
        else:
            key = (method, int(params.get("recordSize", 0)), params.get("batchSize", "-"))
        results[key] = rate(e)

    header = ["op", "bytes", "batch", "unit", "Brook", "Kafka", "Brook/Kafka"]
    table = []
    def fmt(v):
        if v is None:
            return "-"
        return f"{v[0]:,.0f}" if v[1] != v[1] else f"{v[0]:,.0f} ± {v[1]:,.0f}"
    for op, brook_m, kafka_m, unit in OPS:
        combos = sorted({(s, b) for (m, s, b) in results if m in (brook_m, kafka_m)},
                        key=lambda k: (k[0], int(k[1]) if k[1] != "-" else 0))
        for size, batch in combos:
            brook, kafka = results.get((brook_m, size, batch)), results.get((kafka_m, size, batch))
            ratio = f"{brook[0] / kafka[0]:.2f}" if brook and kafka and kafka[0] > 0 else "-"
            table.append([op, str(size), batch, unit, fmt(brook), fmt(kafka), ratio])

    print_table(header, table, markdown, left=("op", "unit"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
