package brook

// PartitionForKey is the partition a keyed record goes to: Kafka's default
// partitioner, toPositive(murmur2(key)) % partitions, the same as the broker's
// and the Java client's (protocol/testdata/partitioner-vectors.json proves the
// three agree).
func PartitionForKey(key []byte, partitions int32) int32 {
	return int32(uint32(murmur2(key)&0x7fffffff) % uint32(partitions))
}

// murmur2 is Kafka's variant of MurmurHash2 (seed 0x9747b28c).
func murmur2(data []byte) int32 {
	const (
		seed = uint32(0x9747b28c)
		m    = uint32(0x5bd1e995)
		r    = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	n := length / 4
	for i := 0; i < n; i++ {
		j := i * 4
		k := uint32(data[j]) | uint32(data[j+1])<<8 | uint32(data[j+2])<<16 | uint32(data[j+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := data[n*4:]
	switch len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}
