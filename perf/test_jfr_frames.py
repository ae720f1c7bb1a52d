"""Tests of perf/jfr_frames.py on events shaped as `jfr print --json` writes them (standard library only).

Run from the repo root: python3 perf/test_jfr_frames.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jfr_frames  # noqa: E402


def sample(thread, *methods):
    """One jdk.ExecutionSample event; methods top first, as "pkg/Class.method"."""
    frames = []
    for m in methods:
        cls, name = m.rsplit(".", 1)
        frames.append({"method": {"type": {"name": cls}, "name": name}, "lineNumber": 1, "type": "JIT compiled"})
    return {"type": "jdk.ExecutionSample",
            "values": {"sampledThread": {"javaName": thread}, "stackTrace": {"truncated": False, "frames": frames}}}


EVENTS = [
    sample("epollEventLoopGroup-3-1", "java/lang/System.arraycopy", "io/brook/broker/kafka/apis/FetchApi.joined",
           "io/brook/broker/kafka/apis/FetchApi.handle"),
    sample("epollEventLoopGroup-3-2", "java/lang/System.arraycopy", "io/brook/broker/kafka/wire/ResponseEncoder.encode"),
    # a method twice on one stack (recursion) counts once for that sample
    sample("brook-read-7", "io/brook/broker/core/FetchAnswer.add", "io/brook/broker/core/FetchAnswer.add",
           "io/brook/broker/kafka/apis/FetchApi.handle"),
    {"type": "jdk.ThreadPark", "values": {}},  # another event type: left out
]


class FramesTest(unittest.TestCase):
    def test_threads_self_and_inclusive(self):
        taken = jfr_frames.samples(EVENTS)
        self.assertEqual(len(taken), 3)
        t = jfr_frames.tables(taken, 10)
        self.assertEqual(t["threads"], [("epollEventLoopGroup-#-#", 2), ("brook-read-#", 1)])
        self.assertEqual(t["self"][0], ("java.lang.System.arraycopy", 2))
        inclusive = dict(t["inclusive"])
        self.assertEqual(inclusive["io.brook.broker.kafka.apis.FetchApi.handle"], 2)
        self.assertEqual(inclusive["io.brook.broker.core.FetchAnswer.add"], 1)

    def test_only_keeps_the_prefix_in_the_inclusive_table(self):
        t = jfr_frames.tables(jfr_frames.samples(EVENTS), 10, only="io.brook")
        self.assertTrue(all(m.startswith("io.brook") for m, _ in t["inclusive"]))
        self.assertEqual(t["self"][0], ("java.lang.System.arraycopy", 2))  # self is never filtered

    def test_render_gives_shares_of_all_samples(self):
        out = jfr_frames.render(jfr_frames.samples(EVENTS), 2)
        self.assertIn("3 execution samples", out)
        self.assertIn("      2   66.7 %  java.lang.System.arraycopy", out)


class JvmLineTest(unittest.TestCase):
    def test_kernel_share_gcs_and_allocation(self):
        events = EVENTS + [
            {"type": "jdk.CPULoad", "values": {"jvmUser": 0.30, "jvmSystem": 0.10, "machineTotal": 0.5}},
            {"type": "jdk.CPULoad", "values": {"jvmUser": 0.20, "jvmSystem": 0.40, "machineTotal": 0.7}},
            {"type": "jdk.GarbageCollection", "values": {"name": "G1New"}},
            {"type": "jdk.ObjectAllocationSample", "values": {"weight": 3 * 2 ** 29}},
        ]
        self.assertEqual(jfr_frames.jvm_line(events),
                         "JVM CPU in the kernel: 50 % (jdk.CPULoad); 1 GCs; 1.50 GiB allocated (allocation samples' weight)")
        self.assertTrue(jfr_frames.render(jfr_frames.samples(events), 2, jvm=jfr_frames.jvm_line(events))
                        .startswith("JVM CPU in the kernel: 50 %"))

    def test_no_cpu_loads_no_line(self):
        self.assertIsNone(jfr_frames.jvm_line(EVENTS))


if __name__ == "__main__":
    unittest.main()
