"""The broker under test and small helpers shared by the Python contract tests.

The broker is the real one, started with bin/brook on ports the OS picks; every test makes its own
topics and groups. Channels are made with gRPC's defaults (a 4 MiB inbound message limit), as a
client written from the .proto alone would make them.
"""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import uuid

import grpc
import pytest

from brook.v1 import admin_pb2, admin_pb2_grpc, ack_pb2_grpc, fetch_pb2_grpc, group_pb2, group_pb2_grpc
from brook.v1 import produce_pb2, produce_pb2_grpc, records_pb2

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../.."))
CAP = 3 << 20  # the broker's answer cap (docs/API.md)
READY = re.compile(r"Brook ready: gRPC on [^:\s]+:(\d+), HTTP on [^:\s]+:(\d+)")


class Broker:
    def __init__(self, data_dir, args):
        self.log_path = os.path.join(data_dir, "broker.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [os.path.join(ROOT, "bin", "brook"), "broker", "--data-dir", os.path.join(data_dir, "data"),
             "--grpc-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--set", "kafka.listen=", *args],
            stdout=self._log, stderr=subprocess.STDOUT,
            # BROOK_* variables set broker keys: the test runner's own must not reach it.
            env={k: v for k, v in os.environ.items() if not k.startswith("BROOK_")})
        deadline = time.time() + 90
        while time.time() < deadline:
            with open(self.log_path) as f:
                m = READY.search(f.read())
            if m:
                self.address = "127.0.0.1:" + m.group(1)
                self.http = "127.0.0.1:" + m.group(2)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        with open(self.log_path) as f:
            raise RuntimeError("the broker did not start:\n" + f.read()[-4000:])

    def channel(self, **options):
        """A channel on gRPC's defaults, or with the given channel options (e.g. a smaller inbound limit)."""
        return grpc.insecure_channel(self.address, options=list(options.items()))

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log.close()


@pytest.fixture(scope="session")
def broker():
    work = tempfile.mkdtemp(prefix="brook-python-")
    b = Broker(work, [])
    yield b
    b.stop()
    shutil.rmtree(work, ignore_errors=True)


@pytest.fixture
def stubs(broker):
    ch = broker.channel()
    yield Stubs(ch)
    ch.close()


class Stubs:
    def __init__(self, ch):
        self.admin = admin_pb2_grpc.AdminServiceStub(ch)
        self.produce = produce_pb2_grpc.ProduceServiceStub(ch)
        self.fetch = fetch_pb2_grpc.FetchServiceStub(ch)
        self.groups = group_pb2_grpc.GroupServiceStub(ch)
        self.ack = ack_pb2_grpc.AckServiceStub(ch)

    def topic(self, prefix, partitions=1, **config):
        name = unique(prefix)
        self.admin.CreateTopic(admin_pb2.CreateTopicRequest(name=name, partitions=partitions,
                                                           config={k.replace("_", "."): str(v) for k, v in config.items()}))
        return name

    def ack_group(self, prefix, **config):
        name = unique(prefix)
        cfg = {"auto.offset.reset": "earliest"}
        cfg.update({k.replace("_", "."): str(v) for k, v in config.items()})
        self.groups.CreateGroup(group_pb2.CreateGroupRequest(group=name, mode=group_pb2.GROUP_MODE_ACK, config=cfg))
        return name

    def send(self, topic, records, partition=0):
        """Produces records (a list of Record) to one partition in one batch."""
        r = self.produce.Produce(produce_pb2.ProduceRequest(batches=[
            produce_pb2.ProduceBatch(topic=topic, partition=partition, records=records)]))
        assert r.results[0].error_code == 0, r.results[0].error_message
        return r.results[0].base_offset

    def end_offset(self, topic, partition=0):
        d = self.admin.DescribeTopic(admin_pb2.DescribeTopicRequest(name=topic))
        return d.topic.partitions[partition].end_offset

    def describe_group(self, group):
        return self.groups.DescribeGroup(group_pb2.DescribeGroupRequest(group=group)).group


def unique(prefix):
    return prefix + "-" + uuid.uuid4().hex[:10]


def record(value, key=None, headers=()):
    r = records_pb2.Record(value=value, headers=[records_pb2.Header(key=k, value=v) for k, v in headers])
    if key is not None:
        r.key = key
    return r


class Requests:
    """The request side of a bidirectional stream: what is put here is sent; close() half-closes."""

    def __init__(self, first):
        self._items = [first]
        self._cv = threading.Condition()
        self._closed = False

    def put(self, item):
        with self._cv:
            self._items.append(item)
            self._cv.notify()

    def close(self):
        with self._cv:
            self._closed = True
            self._cv.notify()

    def __iter__(self):
        while True:
            with self._cv:
                while not self._items and not self._closed:
                    self._cv.wait()
                if self._items:
                    item = self._items.pop(0)
                elif self._closed:
                    return
            yield item
