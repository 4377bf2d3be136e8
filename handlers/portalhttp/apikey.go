package portalhttp

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
)

type keyInfo struct {
	Prefix   string    `json:"prefix"`
	MintedAt time.Time `json:"minted_at"`
}

type keySecret struct {
	Key    string `json:"key"`
	Prefix string `json:"prefix"`
}

// getKey shows the live key's prefix and age, never the key.
func (h *routes) getKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	u, err := h.loadUser(r, user)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	k := u.LiveKey
	if k == nil {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeNotFound, "you have no API key yet; mint one"))
		return
	}
	noStore(w)
	handlers.WriteJSON(w, http.StatusOK, keyInfo{Prefix: k.Prefix, MintedAt: k.MintedAt})
}

// settle waits until the read models hold pos, so the key the answer reports is the one /mcp
// accepts on this replica (and a rotated or revoked one is refused) by the time the person sees it.
func (h *routes) settle(r *http.Request, pos eventstore.Position) error {
	if pos.IsZero() {
		return nil
	}
	if err := h.Projections.WaitFor(r.Context(), pos); err != nil {
		return fmt.Errorf("wait for the read models: %w", err)
	}
	return nil
}

func (h *routes) answerKey(w http.ResponseWriter, r *http.Request, status int, k accounts.Key, pos eventstore.Position, err error) {
	if err == nil {
		err = h.settle(r, pos)
	}
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	noStore(w)
	handlers.WriteJSON(w, status, keySecret{Key: k.Secret, Prefix: k.Prefix})
}

func (h *routes) mintKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	k, pos, err := h.Accounts.MintKey(r.Context(), user, h.md(r, user))
	h.answerKey(w, r, http.StatusCreated, k, pos, err)
}

// rotateKey replaces the live key; the old one is refused at /mcp from the moment this answers.
func (h *routes) rotateKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	k, pos, err := h.Accounts.RotateKey(r.Context(), user, h.md(r, user))
	h.answerKey(w, r, http.StatusOK, k, pos, err)
}

// CodeReauthRequired is the 403 of a reveal from a session older than websession.FreshFor: the
// portal asks the person to sign in again.
const CodeReauthRequired = "REAUTH_REQUIRED"

// revealKey opens the sealed copy of the live key for its owner, from a fresh session only (see
// handlers/websession): a stolen or long-forgotten cookie cannot read the key out.
func (h *routes) revealKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	sess, err := h.session(r)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	if !sess.Fresh(h.Now()) {
		noStore(w)
		handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: CodeReauthRequired,
			Message: fmt.Sprintf("sign in again to reveal the key: it is shown only within %d minutes of signing in (or rotate it to get a new one)", int(websession.FreshFor/time.Minute))})
		return
	}
	k, err := h.Accounts.RevealKey(r.Context(), user)
	h.answerKey(w, r, http.StatusOK, k, eventstore.Start, err)
}

func (h *routes) revokeKey(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	pos, err := h.Accounts.RevokeKey(r.Context(), user, h.md(r, user))
	if err == nil {
		err = h.settle(r, pos)
	}
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	noStore(w)
	w.WriteHeader(http.StatusNoContent)
}
