"""An ack-mode worker in Python, from the .proto alone (docs/API.md §6, AckService.Receive).

Generate the stubs first (pip install grpcio grpcio-tools grpcio-status):
    python -m grpc_tools.protoc -I protocol/src/main/proto --python_out=gen --grpc_python_out=gen \
        protocol/src/main/proto/brook/v1/*.proto
Then: PYTHONPATH=gen python ack_worker.py localhost:7070 workers orders --max 100

It joins the group, prints each record it is leased, acks it on the same stream, and stops after
--max records or --idle seconds without one: it half-closes, and the broker applies the last acks
before it ends the stream. A channel on gRPC's defaults (4 MiB inbound) is enough: the broker keeps
every message within 3 MiB unless it holds a single larger record.
"""
import argparse
import queue
import sys
import threading

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from brook.v1 import ack_pb2, ack_pb2_grpc


def requests(first, outbox):
    """The request side of the stream: the join, then whatever the worker puts in outbox; None ends it."""
    yield first
    while (item := outbox.get()) is not None:
        yield item


def reason(error):
    """The ErrorInfo reason the broker put in the status details (the grpc-status-details-bin trailer)."""
    status = rpc_status.from_call(error)
    for detail in status.details if status else []:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    return ""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("group")
    p.add_argument("topics", nargs="+")
    p.add_argument("--max", type=int, default=0, help="stop after this many records (0: no limit)")
    p.add_argument("--idle", type=float, default=2.0, help="stop after this many seconds without a record")
    args = p.parse_args()

    outbox = queue.Queue()
    idle = threading.Timer(args.idle, lambda: outbox.put(None))  # half-close when nothing comes
    channel = grpc.insecure_channel(args.address)
    stream = ack_pb2_grpc.AckServiceStub(channel).Receive(
        requests(ack_pb2.ReceiveRequest(group=args.group, topics=args.topics), outbox))
    done = 0
    try:
        idle.start()
        for response in stream:
            if response.member_id:
                print(f"joined as {response.member_id}", file=sys.stderr)
            for failure in response.failures:
                print(f"not settled: {failure.range} {failure.error_message}", file=sys.stderr)
            for batch in response.batches:
                acks = []
                for leased in batch.records:
                    r = leased.record
                    print(f"{batch.partition}/{r.offset} attempt {leased.delivery_attempt}: {r.value.decode()}")
                    acks.append(ack_pb2.OffsetRange(topic=batch.topic, partition=batch.partition,
                                                    first_offset=r.offset))
                    done += 1
                if acks:
                    outbox.put(ack_pb2.ReceiveRequest(acks=acks))  # printed first, then acked: at least once
                idle.cancel()
                if args.max and done >= args.max:
                    outbox.put(None)  # no more requests: the broker applies the acks, then ends the stream
                else:
                    idle = threading.Timer(args.idle, lambda: outbox.put(None))
                    idle.start()
    except grpc.RpcError as e:
        print(f"receive failed: {e.code().name} {reason(e)}: {e.details()}", file=sys.stderr)
        return 1
    finally:
        idle.cancel()
        channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
