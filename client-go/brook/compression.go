package brook

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression is how the producer compresses each batch's records (Kafka's
// compression.type; the values are Kafka's attribute codes). The broker stores
// a batch as it came, and every Brook reader and Kafka consumer reads it.
type Compression int8

const (
	CompressionNone   Compression = 0
	CompressionGzip   Compression = 1
	CompressionSnappy Compression = 2
	CompressionLZ4    Compression = 3
	CompressionZstd   Compression = 4
)

func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionSnappy:
		return "snappy"
	case CompressionLZ4:
		return "lz4"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("Compression(%d)", int8(c))
}

func (c Compression) valid() bool { return c >= CompressionNone && c <= CompressionZstd }

// zstdEncoder is shared: EncodeAll may be called from any goroutine.
var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

// xerialHeader opens snappy data in the framing Kafka's Java producer writes
// (snappy-java's SnappyOutputStream): magic, version 1, compatible version 1,
// then blocks, each a big-endian length and a raw snappy block.
var xerialHeader = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

// xerialBlock is the uncompressed size of each snappy block, snappy-java's default.
const xerialBlock = 32 << 10

// compress appends body, compressed, to dst.
func (c Compression) compress(dst, body []byte) ([]byte, error) {
	switch c {
	case CompressionNone:
		return append(dst, body...), nil
	case CompressionGzip:
		buf := bytes.NewBuffer(dst)
		w := gzip.NewWriter(buf)
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case CompressionSnappy:
		dst = append(dst, xerialHeader...)
		for len(body) > 0 {
			n := min(len(body), xerialBlock)
			block := snappy.Encode(nil, body[:n])
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(block)))
			dst = append(dst, block...)
			body = body[n:]
		}
		return dst, nil
	case CompressionLZ4:
		// Kafka's LZ4 frames: 64 KiB independent blocks; no content checksum
		// is needed (Kafka's batch has its CRC).
		buf := bytes.NewBuffer(dst)
		w := lz4.NewWriter(buf)
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false),
			lz4.ConcurrencyOption(1)); err != nil {
			return nil, err
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case CompressionZstd:
		return zstdEncoder.EncodeAll(body, dst), nil
	}
	return nil, fmt.Errorf("brook: unknown compression %d", int8(c))
}
