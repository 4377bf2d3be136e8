package connectorlogins

import "github.com/workbench/workbench/app/connectors/connectorcore"

// This package's names for connectorcore's pieces.
type (
	Creds    = connectorcore.Creds
	Chain    = connectorcore.Chain
	redactor = connectorcore.Redactor
)

const (
	StrategyDynamic    = connectorcore.StrategyDynamic
	StrategyConfigured = connectorcore.StrategyConfigured
	StrategyGitHubApp  = connectorcore.StrategyGitHubApp
)

var (
	endpoint         = connectorcore.Endpoint
	newRedactor      = connectorcore.NewRedactor
	labelledRedactor = connectorcore.LabelledRedactor
	providerError    = connectorcore.ProviderError
	rejected         = connectorcore.Rejected
	fromPool         = connectorcore.FromPool
	isOAuth          = connectorcore.IsOAuth
	overridesOf      = connectorcore.OverridesOf
)
