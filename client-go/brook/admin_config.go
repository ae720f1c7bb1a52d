package brook

// adminConfig is NewAdmin's configuration.
type adminConfig struct {
	conn connConfig
}
