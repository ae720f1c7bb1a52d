#!/usr/bin/env python3
"""Where a JFR recording's CPU samples are: by thread, by top frame, and by frame anywhere on the stack.

Usage:
  python3 perf/jfr_frames.py RECORDING.jfr [--top N] [--only PREFIX]

Reads the recording's jdk.ExecutionSample events with `jfr print --json` (the `jfr` on PATH, or $JFR)
and prints three tables, each with samples and their share:
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


def render(taken, top, only=None):
    n = len(taken)
    out = [f"{n} execution samples"]
    for name, rows in tables(taken, top, only).items():
        out += ["", f"{name}:"]
        out += [f"{count:7d} {100.0 * count / n:6.1f} %  {what}" for what, count in rows]
    return "\n".join(out) + "\n"


def read(recording):
    jfr = os.environ.get("JFR", "jfr")
    done = subprocess.run([jfr, "print", "--json", "--events", "jdk.ExecutionSample", recording],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["recording"]["events"]


def main(argv):
    parser = argparse.ArgumentParser(prog="jfr_frames.py", description=__doc__.splitlines()[0])
    parser.add_argument("recording")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", help="inclusive table: methods whose class starts with this")
    args = parser.parse_args(argv)
    taken = samples(read(args.recording))
    if not taken:
        print(f"jfr_frames: no execution samples in {args.recording}", file=sys.stderr)
        return 1
    sys.stdout.write(render(taken, args.top, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
