// Package erasure serves POST /api/admin/users/erase, the admin API of a user's erasure (GDPR art. 17,
// app/compliance.Eraser). Only an instance admin may call it: a caller authenticated by a workbench API
// key or a portal session (from the portal's own origin) whose email is one of the admins'.
package erasure

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/mcp"
)

// Path is where the handler is mounted.
const Path = "/api/admin/users/erase"

// Eraser is the use case (app/compliance.Eraser implements it).
type Eraser interface {
	EraseUser(ctx context.Context, email string, md eventstore.Metadata) (compliance.Erasure, error)
}

// Options configure the handler.
type Options struct {
	Eraser Eraser
	// Auth resolves the caller (API key, portal session).
	Auth mcp.Authenticator
	// Admins are the normalised emails of the instance admins.
	Admins []string
	// WaitFor, when set, waits until the read models have applied the erasure, so the answer comes when
	// they no longer show the personal data.
	WaitFor func(ctx context.Context, pos eventstore.Position) error
	Logger  *slog.Logger
	Now     func() time.Time
}

// Request is the JSON body of a POST.
type Request struct {
	Email string `json:"email"`
}

// Handler answers POST {"email": E} with the Erasure as JSON (200). No credential or a bad one is 401,
// a caller who is not an admin 403, a malformed body or email 400, an unknown email 404.
func Handler(o Options) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			handlers.WriteJSON(w, http.StatusMethodNotAllowed, handlers.ErrorBody{Error: "method_not_allowed", Message: r.Method + " is not allowed here; use POST"})
			return
		}
		p, err := o.Auth.Authenticate(r)
		if errors.Is(err, authn.ErrNoCredential) {
			err = domain.Errorf(domain.CodeUnauthenticated, "sign in as an instance admin, or send an admin's API key")
		}
		if err != nil {
			handlers.WriteError(w, r, o.Logger, err)
			return
		}
		if !isAdmin(o.Admins, p.Email) {
			handlers.WriteError(w, r, o.Logger, domain.Errorf(domain.CodeForbidden, "only an instance admin may erase users"))
			return
		}
		var req Request
		body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err != nil || strings.TrimSpace(req.Email) == "" {
			handlers.WriteError(w, r, o.Logger, domain.Errorf(domain.CodeInvalid, `send a JSON body {"email": "..."} naming the user to erase`))
			return
		}
		actor := p.UserID
		if _, err := uuid.Parse(actor); err != nil {
			actor = p.Email
		}
		md := eventstore.Metadata{Actor: actor, MCPClient: p.ClientID, CorrelationID: middleware.GetReqID(r.Context()), Time: o.Now().UTC()}
		res, err := o.Eraser.EraseUser(r.Context(), req.Email, md)
		if err != nil {
			handlers.WriteError(w, r, o.Logger, err)
			return
		}
		if o.WaitFor != nil && !res.AlreadyErased {
			if err := o.WaitFor(r.Context(), res.Position); err != nil {
				handlers.WriteError(w, r, o.Logger, err)
				return
			}
		}
		handlers.WriteJSON(w, http.StatusOK, res)
	})
}

func isAdmin(admins []string, email string) bool {
	if email == "" {
		return false
	}
	for _, a := range admins {
		if strings.EqualFold(a, email) {
			return true
		}
	}
	return false
}
