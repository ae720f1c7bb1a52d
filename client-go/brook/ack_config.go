package brook

// ackConsumerConfig is NewAckConsumer's configuration.
type ackConsumerConfig struct {
	conn   connConfig
	group  string
	topics []string
}
