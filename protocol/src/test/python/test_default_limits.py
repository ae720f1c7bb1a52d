"""A client on gRPC's default limits (4 MiB inbound) reads everything the broker sends it.

Every answer and stream message stays within the broker's 3 MiB answer cap unless it holds a single
record alone, and an ack-mode delivery whose stream failed before the message was written does not
count as a delivery attempt (docs/API.md).
"""
import grpc

from brook.v1 import ack_pb2, fetch_pb2, records_pb2
from conftest import CAP, Requests, record


def receive(ack, group, topic, want, timeout=30):
    """Receives on one stream, acking each record, until `want` distinct offsets came (then half-closes
    and waits for the broker to end the stream). Returns ([(offset, attempt)], [message sizes])."""
    requests = Requests(ack_pb2.ReceiveRequest(group=group, topics=[topic]))
    got, sizes, seen = [], [], set()
    try:
        for resp in ack.Receive(iter(requests), timeout=timeout):
            sizes.append(resp.ByteSize())
            acks = []
            for b in resp.batches:
                for lr in b.records:
                    got.append((lr.record.offset, lr.delivery_attempt, len(lr.record.value)))
                    seen.add(lr.record.offset)
                    acks.append(ack_pb2.OffsetRange(topic=b.topic, partition=b.partition,
                                                    first_offset=lr.record.offset))
            if acks:
                requests.put(ack_pb2.ReceiveRequest(acks=acks))
            if len(seen) >= want:
                requests.close()  # the broker applies the acks, then ends the stream
    finally:
        requests.close()
    return got, sizes


def dead_letters(stubs, group):
    try:
        return stubs.end_offset(group + ".dlq")
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.NOT_FOUND
        return 0


def test_receive_of_records_over_4_kib_reaches_a_default_client_and_dead_letters_nothing(stubs):
    # The reproduction: 1,000 records of 5,000 bytes, FlowControl unset (1,000 records, 100 MiB),
    # max.delivery.attempts=2. One message would be ~5 MB: over the client's limit, each failed stream
    # spending an attempt, until everything was dead-lettered unseen.
    topic = stubs.topic("big")
    for _ in range(10):
        stubs.send(topic, [record(b"x" * 5000) for _ in range(100)])
    group = stubs.ack_group("work", max_delivery_attempts=2)

    got, sizes = receive(stubs.ack, group, topic, 1000)

    assert sorted({o for o, _, _ in got}) == list(range(1000))
    assert all(a == 1 for _, a, _ in got)
    assert max(sizes) <= CAP, sizes
    d = stubs.describe_group(group)
    assert d.partitions[0].committed_offset == 1000
    assert d.partitions[0].dead_lettered_records == 0
    assert dead_letters(stubs, group) == 0


def test_fetch_and_tail_answers_stay_under_the_cap_counting_what_wraps_each_record(stubs):
    # Records whose framing outweighs their payload: 20 bytes of payload, ~110 bytes on the wire. A
    # 3 MiB max_bytes of payload would make an answer of ~17 MB if only payload counted.
    topic = stubs.topic("tiny")
    tiny = record(b"", headers=[(chr(97 + i), b"") for i in range(20)])
    total = 60_000
    for _ in range(total // 20_000):
        stubs.send(topic, [tiny] * 20_000)

    offset, fetched, largest = 0, 0, 0
    while offset < total:
        r = stubs.fetch.Fetch(fetch_pb2.FetchRequest(
            partitions=[fetch_pb2.FetchPartition(topic=topic, partition=0, offset=offset)],
            max_records=100_000, max_bytes=CAP))
        largest = max(largest, r.ByteSize())
        p = r.partitions[0]
        assert p.error_code == 0, p.error_message
        assert p.records and p.next_offset == p.records[-1].offset + 1
        fetched += len(p.records)
        offset = p.next_offset
    assert fetched == total
    assert largest <= CAP

    tailed, largest = 0, 0
    stream = stubs.fetch.Tail(fetch_pb2.TailRequest(
        partitions=[fetch_pb2.TailPartition(topic=topic, partition=0, start=records_pb2.Position(offset=0))],
        max_records=100_000, max_bytes=CAP), timeout=60)
    for m in stream:
        largest = max(largest, m.ByteSize())
        tailed += len(m.records.records)
        if tailed >= total:
            stream.cancel()
            break
    assert tailed == total
    assert largest <= CAP


def test_a_stored_batch_over_the_cap_is_fetched_raw_as_records_within_the_cap(stubs):
    # One produce batch of 40,000 records of 100 bytes is stored as one batch of ~4.5 MB: whole, it would
    # not fit a default client's limit.
    topic = stubs.topic("onebatch")
    stubs.send(topic, [record(b"v" * 100) for _ in range(40_000)])

    offset, largest = 0, 0
    while offset < 40_000:
        r = stubs.fetch.Fetch(fetch_pb2.FetchRequest(
            partitions=[fetch_pb2.FetchPartition(topic=topic, partition=0, offset=offset)],
            max_bytes=CAP, raw_batches=True))
        largest = max(largest, r.ByteSize())
        p = r.partitions[0]
        assert p.error_code == 0, p.error_message
        assert p.next_offset > offset
        offset = p.next_offset
    assert largest <= CAP


def test_a_single_record_larger_than_the_cap_goes_out_alone(stubs):
    big = 3_500_000  # over the 3 MiB cap, under the client's 4 MiB
    topic = stubs.topic("huge", max_record_bytes=4 << 20)
    stubs.send(topic, [record(b"s")])
    stubs.send(topic, [record(b"b" * big)])
    stubs.send(topic, [record(b"t")])

    r = stubs.fetch.Fetch(fetch_pb2.FetchRequest(
        partitions=[fetch_pb2.FetchPartition(topic=topic, partition=0, offset=0)], max_bytes=CAP))
    assert [len(x.value) for x in r.partitions[0].records] == [1]
    r = stubs.fetch.Fetch(fetch_pb2.FetchRequest(
        partitions=[fetch_pb2.FetchPartition(topic=topic, partition=0, offset=1)], max_bytes=CAP))
    assert [len(x.value) for x in r.partitions[0].records] == [big]

    group = stubs.ack_group("alone")
    got, sizes = receive(stubs.ack, group, topic, 3)
    assert sorted(o for o, _, _ in got) == [0, 1, 2]
    assert [s for s in sizes if s > CAP] == [max(sizes)]  # the one message over the cap...
    assert max(sizes) < big + 1024  # ...holds the big record alone


def test_a_delivery_whose_stream_failed_does_not_count_as_an_attempt(broker, stubs):
    # A client whose inbound limit (1 MiB) is below a record (2 MiB) never gets it: its streams fail
    # while the message is sent. Those deliveries must not spend max.delivery.attempts, so a client that
    # can take the record still gets it, as its first attempt, and nothing is dead-lettered.
    topic = stubs.topic("unread", max_record_bytes=3 << 20)
    stubs.send(topic, [record(b"r" * (2 << 20))])
    group = stubs.ack_group("failing", max_delivery_attempts=2)

    small = broker.channel(**{"grpc.max_receive_message_length": 1 << 20})
    small_ack = type(stubs.ack)(small)
    for _ in range(3):
        try:
            receive(small_ack, group, topic, 1, timeout=10)
            raise AssertionError("a 2 MiB record reached a client with a 1 MiB limit")
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, e
    small.close()

    got, _ = receive(stubs.ack, group, topic, 1)
    assert [(o, a) for o, a, _ in got] == [(0, 1)]
    assert dead_letters(stubs, group) == 0
    assert stubs.describe_group(group).partitions[0].committed_offset == 1


def test_a_record_its_topic_took_is_dead_lettered_however_large(stubs):
    # The dead-letter topic is made with the broker's default max.record.bytes (1 MiB), and a dead
    # letter carries origin headers on top: a record its own topic took must still go there.
    topic = stubs.topic("near", max_record_bytes=3 << 20)
    stubs.send(topic, [record(b"r" * (2 << 20), key=b"k")])
    group = stubs.ack_group("rejecting")
    requests = Requests(ack_pb2.ReceiveRequest(group=group, topics=[topic]))
    for resp in stubs.ack.Receive(iter(requests), timeout=30):
        for b in resp.batches:
            for lr in b.records:
                requests.put(ack_pb2.ReceiveRequest(nacks=[ack_pb2.Nack(
                    range=ack_pb2.OffsetRange(topic=b.topic, partition=b.partition, first_offset=lr.record.offset),
                    reject=True)]))
                requests.close()

    assert stubs.describe_group(group).partitions[0].dead_lettered_records == 1
    dlq = group + ".dlq"
    r = stubs.fetch.Fetch(fetch_pb2.FetchRequest(
        partitions=[fetch_pb2.FetchPartition(topic=dlq, partition=0, offset=0)], max_bytes=CAP))
    [letter] = r.partitions[0].records
    assert len(letter.value) == 2 << 20 and letter.key == b"k"
    headers = {h.key: h.value for h in letter.headers}
    assert headers["brook.dlq.topic"] == topic.encode() and headers["brook.dlq.reason"] == b"rejected"
