package config

// EnvDevAllowLoopback lets URL-fetching features reach loopback addresses (tests and local
// development only).
const EnvDevAllowLoopback = "WORKBENCH_DEV_ALLOW_LOOPBACK"

// readDevelopment reads the development switches.
func readDevelopment(r reader, c *Config) error {
	var err error
	c.DevAllowLoopback, err = r.boolean(EnvDevAllowLoopback)
	return err
}

// DevAllowLoopback reads WORKBENCH_DEV_ALLOW_LOOPBACK alone, for a command that needs the switch but
// not the rest of the configuration (workbench plugins check).
func DevAllowLoopback(getenv func(string) string) (bool, error) {
	return reader(getenv).boolean(EnvDevAllowLoopback)
}
