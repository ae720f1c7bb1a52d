package brook

// consumerConfig is NewConsumer's configuration.
type consumerConfig struct {
	conn   connConfig
	group  string
	topics []string
}
