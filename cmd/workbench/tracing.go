package main

import (
	"net/http"

	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/internal/tracing"
)

// tracedAuth makes an MCP request's authentication a span of its trace, "authenticate", failed when
// no credential was accepted (the reason is not recorded: it may name the credential's kind).
type tracedAuth struct{ next mcp.Authenticator }

func (a tracedAuth) Authenticate(r *http.Request) (mcp.Principal, error) {
	ctx, span := tracing.Start(r.Context(), "authenticate")
	defer span.End()
	p, err := a.next.Authenticate(r.WithContext(ctx))
	if err != nil {
		tracing.Fail(span, errAuthFailed)
	}
	return p, err
}

var errAuthFailed = errString("not authenticated")

type errString string

func (e errString) Error() string { return string(e) }
