package brook

// producerConfig is NewProducer's configuration.
type producerConfig struct {
	conn connConfig
}
