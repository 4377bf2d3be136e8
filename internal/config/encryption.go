package config

// readEncryption reads the vault's keys as given; the vault parses and checks them when it opens.
func readEncryption(r reader, c *Config) error {
	c.EncryptionKey = r.text("ENCRYPTION_KEY")
	c.EncryptionKeyPrevious = r.text("ENCRYPTION_KEY_PREVIOUS")
	return nil
}
