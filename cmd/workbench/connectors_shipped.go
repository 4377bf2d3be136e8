package main

import (
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/connectors"
)

// shippedConnectors loads the connector folders built into the binary with their adapters.
func shippedConnectors() ([]*connector.Connector, []connector.Problem) { return connectors.Load(nil) }
