"""The Python examples of docs/ run as written, against the real broker."""
import os
import subprocess
import sys

from conftest import ROOT, record

WORKER = os.path.join(ROOT, "docs", "examples", "python", "ack_worker.py")


def run(*args):
    return subprocess.run([sys.executable, WORKER, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ))


def test_the_ack_worker_prints_and_acks_what_it_is_leased(broker, stubs):
    topic = stubs.topic("orders")
    stubs.send(topic, [record(b"order-%d" % i) for i in range(5)])
    group = stubs.ack_group("workers")

    r = run(broker.address, group, topic, "--max", "5")

    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["0/%d attempt 1: order-%d" % (i, i) for i in range(5)]
    assert stubs.describe_group(group).partitions[0].committed_offset == 5


def test_the_ack_worker_reads_the_error_info_of_a_refusal(broker, stubs):
    r = run(broker.address, "nobody-reads", "no-such-topic", "--idle", "1")

    assert r.returncode == 1
    assert "receive failed: NOT_FOUND UNKNOWN_TOPIC" in r.stderr, r.stderr
