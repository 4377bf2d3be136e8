// Package connectortools is the tools of connector logins and their switches (spec connectors.md,
// Switches; spec workbench-how-it-works.md, the tool-call path): the tools an agent sees and runs
// through the meta-tools (Service implements executions.ToolSource, tools.go), the run-start relists
// and the cache of the tool-call path (hot.go), a remote result's content crossing whole (content.go),
// a remote's resources, prompts and completions (resources.go), the state hooks of a run start
// (state.go), the switches of connector tools (switches.go) and of plugin tools (pluginswitches.go) at
// every scope, testing a tool, and a login's detail with its tools' switches (views.go).
//
// It owns the switch streams (login.SwitchStreamName, one per scope), written here alone through one
// eventstore.Aggregate value (service.go: switchAggregate, login.DecideSwitch): SetSwitch,
// SetStartPreference and ClearSwitches.
//
// Design decisions. It imports connectorcore and connectorlogins and sits above both: it reaches the
// logins through a field (token refresh, listings, platform calls). The use cases below it reach the
// switch streams through it by narrow interfaces that connectors.New wires: the logins clear a removed
// login's default switches (connectorlogins.Switches, ClearSwitches), and the catalog removes a
// deleted server's logins and switches (connectorcatalog.Dependents, RemoveServerDependents). The
// cache of the tool-call path is cleared after every write of any connector use case
// (connectorcore.Core.AfterWrite), so a write on this replica is read at once.
//
// State hooks (state.go): at a run start (an MCP session's initialize) RunContext runs the state hooks
// of the connectors the agent has On, in parallel under one budget (Options.StateBudget, 5 s), each
// value measured (32,000 serialised bytes), redacted against its login's credentials, or replaced by
// {"unavailable": reason}; core keys (connector.ReservedStateKeys) are dropped. Instructions renders the
// state's intros and values and the offered connectors' prompt.guidance for the session's instructions.
package connectortools
