package connectorcatalog

import "github.com/workbench/workbench/app/connectors/connectorcore"

// This package's names for connectorcore's pieces.
type (
	Creds = connectorcore.Creds
)

var (
	endpoint    = connectorcore.Endpoint
	manifestOf  = connectorcore.RowManifest
	overridesOf = connectorcore.OverridesOf
)
