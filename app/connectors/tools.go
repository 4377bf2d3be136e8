package connectors

import "github.com/workbench/workbench/app/connectors/connectortools"

// The names callers use for connectortools' pieces.
type (
	Offered           = connectortools.Offered
	OfferedTool       = connectortools.OfferedTool
	ToolView          = connectortools.ToolView
	LoginDetail       = connectortools.LoginDetail
	AccountView       = connectortools.AccountView
	ConnectorAccounts = connectortools.ConnectorAccounts
	StateEntry        = connectortools.StateEntry
	Guidance          = connectortools.Guidance
	RunContext        = connectortools.RunContext
	Subscriber        = connectortools.Subscriber
	RemotePool        = connectortools.RemotePool
	PluginToolLookup  = connectortools.PluginToolLookup
	PluginSwitchView  = connectortools.PluginSwitchView
	OffTool           = connectortools.OffTool
)

// DefaultStateBudget bounds a run start's state hooks, all together (connectortools/state.go).
const DefaultStateBudget = connectortools.DefaultStateBudget
