package connectors

import (
	"github.com/workbench/workbench/app/connectors/connectorcore"
)

// The names callers and this package use for connectorcore's pieces.
type (
	Options            = connectorcore.Options
	Sealer             = connectorcore.Sealer
	Projections        = connectorcore.Projections
	Chain              = connectorcore.Chain
	Scopes             = connectorcore.Scopes
	Pool               = connectorcore.Pool
	PlatformKeys       = connectorcore.PlatformKeys
	IntegrationLookup  = connectorcore.IntegrationLookup
	Creds              = connectorcore.Creds
	OrgRoles           = connectorcore.OrgRoles
	ScopeNamer         = connectorcore.ScopeNamer
	PersonalScopes     = connectorcore.PersonalScopes
	OrganizationScopes = connectorcore.OrganizationScopes
)

// Defaults.
const (
	RelistAfter        = connectorcore.RelistAfter
	MaxTestResultBytes = connectorcore.MaxTestResultBytes
	RunStartTimeout    = connectorcore.RunStartTimeout
	DefaultCacheTTL    = connectorcore.DefaultCacheTTL
	// Redacted is what replaces a credential value.
	Redacted = connectorcore.Redacted

	StrategyDynamic    = connectorcore.StrategyDynamic
	StrategyConfigured = connectorcore.StrategyConfigured
	StrategyGitHubApp  = connectorcore.StrategyGitHubApp
)
