#!/usr/bin/env python3
"""Writes 1 GiB into a new file on this machine's disk four ways and prints the CPU each took.

    python3 perf/mmap_vs_write.py [DIR]      (DIR: where the file goes; default the temp directory,
                                              where bin/brook-perf puts both brokers' data)

write() is how Kafka appends; a shared mapping of a sparse file is how Chronicle Queue (and so
Brook) appends. A write fault on a hole makes the kernel read the page first, which for a hole means
zero-filling it (with readahead, a large folio at a time), and only then does the copy land. The
figures say what that costs here, apart from everything else the brokers do (issue 11).
"""
import mmap
import os
import sys
import tempfile
import time

SIZE = 1 << 30
CHUNK = 1 << 20
MADV_POPULATE_WRITE = 23  # Linux 5.14+
data = os.urandom(CHUNK)


def cpu():
    t = os.times()
    return t.user + t.system, t.system


def by_write(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    for _ in range(SIZE // CHUNK):
        os.write(fd, data)
    os.close(fd)


def by_mapping(advice=None, populate=False):
    def run(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        os.ftruncate(fd, SIZE)
        m = mmap.mmap(fd, SIZE)
        if advice is not None:
            m.madvise(advice)
        for i in range(SIZE // CHUNK):
            if populate and i % 2 == 0:
                m.madvise(MADV_POPULATE_WRITE, i * CHUNK, 2 * CHUNK)
            m[i * CHUNK:(i + 1) * CHUNK] = data
        m.close()
        os.close(fd)
    return run


def measure(name, write, directory):
    path = os.path.join(directory, "mmap_vs_write.dat")
    if os.path.exists(path):
        os.unlink(path)
    c0, s0 = cpu()
    w0 = time.time()
    write(path)
    c1, s1 = cpu()
    w1 = time.time()
    os.unlink(path)
    print(f"{name:24s} wall {w1 - w0:5.2f} s   cpu {c1 - c0:5.2f} s   of it system {s1 - s0:5.2f} s", flush=True)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else tempfile.gettempdir()
    for repeat in range(3):
        print(f"-- repeat {repeat + 1} (1 GiB each)")
        measure("write()", by_write, directory)
        measure("mapping", by_mapping(), directory)
        measure("mapping, MADV_RANDOM", by_mapping(mmap.MADV_RANDOM), directory)
        measure("mapping, POPULATE_WRITE", by_mapping(populate=True), directory)


if __name__ == "__main__":
    main()
