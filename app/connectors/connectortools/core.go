package connectortools

import "github.com/workbench/workbench/app/connectors/connectorcore"

// This package's names for connectorcore's pieces.
type (
	Creds    = connectorcore.Creds
	Chain    = connectorcore.Chain
	redactor = connectorcore.Redactor
)

const (
	RelistAfter        = connectorcore.RelistAfter
	MaxTestResultBytes = connectorcore.MaxTestResultBytes
	RunStartTimeout    = connectorcore.RunStartTimeout
)

var (
	endpoint      = connectorcore.Endpoint
	newRedactor   = connectorcore.NewRedactor
	providerError = connectorcore.ProviderError
	rejected      = connectorcore.Rejected
	isOAuth       = connectorcore.IsOAuth
)
