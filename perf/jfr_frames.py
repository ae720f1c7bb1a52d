#!/usr/bin/env python3
"""Where a JFR recording's CPU samples are: by thread, by top frame, and by frame anywhere on the stack.

Usage:
  python3 perf/jfr_frames.py RECORDING.jfr [--top N] [--only PREFIX]

Reads the recording with `jfr print --json` (the `jfr` on PATH, or $JFR). First a line on the whole
JVM: the share of its CPU spent in the kernel (jdk.CPULoad: jvmSystem over jvmUser + jvmSystem), the
garbage collections and the bytes the allocation samples stand for. Then three tables of the
jdk.ExecutionSample events, each with samples and their share:
  threads     per thread, numbers in its name replaced by # (one row per pool: epollEventLoopGroup-#-#);
  self        the method on top of the stack (where the CPU was);
  inclusive   every method on the stack, counted once per sample (the work under it: FetchApi.handle);
              --only io.brook keeps the methods whose class starts with the prefix.
Samples are what JFR's sampler took (Java code only: no kernel time, no sendfile). Standard library only.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys


def samples(events):
    """(thread name, [method names, top first]) per jdk.ExecutionSample event."""
    out = []
    for e in events:
        if e.get("type") != "jdk.ExecutionSample":
            continue
        values = e.get("values") or {}
        thread = (values.get("sampledThread") or {}).get("javaName") or "?"
        frames = ((values.get("stackTrace") or {}).get("frames")) or []
        out.append((thread, [method_name(f) for f in frames]))
    return out


def jvm_line(events):
    """Kernel share of the JVM's CPU, GCs and allocation over the recording, or None without CPU loads."""
    user = system = 0.0
    gcs = allocated = 0
    for e in events:
        values = e.get("values") or {}
        if e.get("type") == "jdk.CPULoad":
            user += values.get("jvmUser") or 0.0
            system += values.get("jvmSystem") or 0.0
        elif e.get("type") == "jdk.GarbageCollection":
            gcs += 1
        elif e.get("type") == "jdk.ObjectAllocationSample":
            allocated += values.get("weight") or 0
    if user + system == 0:
        return None
    return (f"JVM CPU in the kernel: {100.0 * system / (user + system):.0f} % (jdk.CPULoad); "
            f"{gcs} GCs; {allocated / 2 ** 30:.2f} GiB allocated (allocation samples' weight)")


def method_name(frame):
    m = frame.get("method") or {}
    # JFR writes class names in their internal form: io/brook/broker/kafka/apis/FetchApi
    return f"{(m.get('type') or {}).get('name', '?').replace('/', '.')}.{m.get('name', '?')}"


def pool(thread):
    return re.sub(r"\d+", "#", thread)


def tables(taken, top, only=None):
    threads = collections.Counter(pool(t) for t, _ in taken)
    self_ = collections.Counter(frames[0] for _, frames in taken if frames)
    inclusive = collections.Counter()
    for _, frames in taken:
        inclusive.update(m for m in set(frames) if only is None or m.startswith(only))
    return {"threads": threads.most_common(top), "self": self_.most_common(top),
            "inclusive": inclusive.most_common(top)}


def render(taken, top, only=None, jvm=None):
    n = len(taken)
    out = ([jvm] if jvm else []) + [f"{n} execution samples"]
    for name, rows in tables(taken, top, only).items():
        out += ["", f"{name}:"]
        out += [f"{count:7d} {100.0 * count / n:6.1f} %  {what}" for what, count in rows]
    return "\n".join(out) + "\n"


def read(recording):
    jfr = os.environ.get("JFR", "jfr")
    events = "jdk.ExecutionSample,jdk.CPULoad,jdk.GarbageCollection,jdk.ObjectAllocationSample"
    done = subprocess.run([jfr, "print", "--json", "--events", events, recording],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["recording"]["events"]


def main(argv):
    parser = argparse.ArgumentParser(prog="jfr_frames.py", description=__doc__.splitlines()[0])
    parser.add_argument("recording")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", help="inclusive table: methods whose class starts with this")
    args = parser.parse_args(argv)
    events = read(args.recording)
    taken = samples(events)
    if not taken:
        print(f"jfr_frames: no execution samples in {args.recording}", file=sys.stderr)
        return 1
    sys.stdout.write(render(taken, args.top, args.only, jvm_line(events)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
