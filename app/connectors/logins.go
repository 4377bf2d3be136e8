package connectors

import "github.com/workbench/workbench/app/connectors/connectorlogins"

// The names callers use for connectorlogins' pieces.
type (
	View           = connectorlogins.View
	ConnectRequest = connectorlogins.ConnectRequest
	ConnectResult  = connectorlogins.ConnectResult
	Callback       = connectorlogins.Callback
	CallbackResult = connectorlogins.CallbackResult
)

// OAuth's paths, limits and GitHub's defaults (connectorlogins/oauth.go, githubapp.go).
const (
	CallbackPath        = connectorlogins.CallbackPath
	StateTTL            = connectorlogins.StateTTL
	RefreshBefore       = connectorlogins.RefreshBefore
	DefaultGitHubURL    = connectorlogins.DefaultGitHubURL
	DefaultGitHubAPIURL = connectorlogins.DefaultGitHubAPIURL
)

var (
	// ErrOAuthUnsupported and ErrOAuthNotSetUp are connectorlogins'.
	ErrOAuthUnsupported = connectorlogins.ErrOAuthUnsupported
	ErrOAuthNotSetUp    = connectorlogins.ErrOAuthNotSetUp
	// PlatformRedacted is connectorlogins.PlatformRedacted.
	PlatformRedacted = connectorlogins.PlatformRedacted
)
