package audithttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/identityrm"
)

// Lister reads every user's records from the read model (projections/auditrm.Reader implements it).
type Lister interface {
	List(ctx context.Context, q auditrm.Query, each func(auditrm.Record) error) (more bool, err error)
}

var _ Lister = auditrm.Reader{}

// Users resolves the signed-in user's email and an auditor's target (projections/identityrm.Reader).
type Users interface {
	UserByID(ctx context.Context, id uuid.UUID) (identityrm.User, error)
	UserByEmail(ctx context.Context, email string) (identityrm.User, error)
}

// Roles is the auditor role (app/compliance.Service implements it).
type Roles interface {
	IsAdmin(p compliance.Principal) bool
	Grant(ctx context.Context, p compliance.Principal, user uuid.UUID, email string) (eventstore.Position, error)
	Revoke(ctx context.Context, p compliance.Principal, user uuid.UUID) (eventstore.Position, error)
	AuthorizeRead(ctx context.Context, p compliance.Principal, view, query string) (eventstore.Position, error)
	IsAuditor(ctx context.Context, user uuid.UUID) (bool, error)
}

var _ Roles = (*compliance.Service)(nil)

// AdminOptions is what the compliance API needs. AsOf and BlastRadius read the log (the wiring binds
// them to the store: projections/auditrm.AsOf and BlastRadius).
type AdminOptions struct {
	UserOf      func(*http.Request) (uuid.UUID, bool)
	SameOrigin  func(*http.Request) bool
	Users       Users
	Roles       Roles
	Records     Lister
	AsOf        func(context.Context, auditrm.AsOfQuery) (auditrm.AsOfResult, error)
	BlastRadius func(context.Context, auditrm.BlastQuery) (auditrm.BlastReport, error)
	// WhatIf tries proposed tool switches on the recorded executions (projections/auditrm.WhatIf with
	// the scopes and switches read models bound); nil leaves GET /api/admin/audit/what-if unmounted.
	WhatIf func(context.Context, auditrm.WhatIfQuery) (auditrm.WhatIfReport, error)
	// Credentials lists the credentials the records name, and Names names them, for
	// GET /api/admin/audit/credentials; nil leaves it unmounted.
	Credentials CredentialSource
	Names       CredentialNames
	Logger      *slog.Logger
}

// The formats of GET /api/admin/audit.
const (
	FormatJSON  = "json"
	FormatJSONL = auditrm.FormatJSONL
	FormatCSV   = auditrm.FormatCSV
	FormatHTML  = "html"
)

// ListPage is the JSON body of GET /api/admin/audit.
type ListPage struct {
	Records []auditrm.Record `json:"records"`
	// NextAfter, when set, is the `after` value of the next page (a log position); absent on the last.
	NextAfter string `json:"next_after,omitempty"`
}

// MountAdmin mounts the compliance API (issue 15, items 2 to 4) for the portal's signed-in users:
//
//	GET    /api/admin/audit                 every user's records, filtered, in log order (auditors)
//	GET    /api/admin/audit/asof            every connection at an instant, folded from the log (auditors)
//	GET    /api/admin/audit/blast-radius    what one credential or agent did, JSON or HTML (auditors)
//	GET    /api/admin/audit/what-if         calls proposed tool switches would have blocked (auditors)
//	GET    /api/admin/audit/credentials     the keys, clients, sessions and agents the records name (auditors)
//	GET    /api/admin/audit/me              whether the signed-in user is an admin and an auditor
//	POST   /api/admin/auditors              {"email": ...} grants the auditor role (instance admins)
//	DELETE /api/admin/auditors/{email}      revokes it (instance admins)
//
// Every read is authorised and recorded (identity.audit_read) before a record is written to the
// response. A state-changing request must be same-origin (the portal's rule).
func MountAdmin(r chi.Router, o AdminOptions) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	a := &admin{o}
	r.Get("/api/admin/audit", a.list)
	r.Get("/api/admin/audit/asof", a.asof)
	r.Get("/api/admin/audit/blast-radius", a.blast)
	if o.WhatIf != nil {
		r.Get("/api/admin/audit/what-if", a.whatIf)
	}
	if o.Credentials != nil {
		r.Get("/api/admin/audit/credentials", a.credentials)
	}
	r.Get("/api/admin/audit/me", a.me)
	r.Post("/api/admin/auditors", a.grant)
	r.Delete("/api/admin/auditors/{email}", a.revoke)
}

type admin struct{ AdminOptions }

// principal is the signed-in user with their email, or the error to answer.
func (a *admin) principal(r *http.Request) (compliance.Principal, error) {
	id, ok := a.UserOf(r)
	if !ok || id == uuid.Nil {
		return compliance.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first")
	}
	u, err := a.Users.UserByID(r.Context(), id)
	if errors.Is(err, identityrm.ErrNotFound) {
		return compliance.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first")
	}
	if err != nil {
		return compliance.Principal{}, &domain.Error{Code: domain.CodeUnavailable, Message: "the user store cannot be read now", Err: err}
	}
	return compliance.Principal{ID: id, Email: u.Email}, nil
}

// authorize checks the auditor role and records the read; false when it has answered.
func (a *admin) authorize(w http.ResponseWriter, r *http.Request, view string) bool {
	p, err := a.principal(r)
	if err == nil {
		_, err = a.Roles.AuthorizeRead(r.Context(), p, view, r.URL.Query().Encode())
	}
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return false
	}
	// An export streams and asof and blast-radius read the whole log: past the server's write
	// deadline on a large one, once the reader is known to be an auditor.
	httpserve.LiftDeadlines(w)
	return true
}

func invalid(format string, args ...any) error {
	return domain.Errorf(domain.CodeInvalid, format, args...)
}

// parseQuery reads the list filters: user (email), integration, tool, outcome, client, account (a
// label), from, to (RFC 3339 or a date), after (a position), limit.
func parseQuery(v url.Values, defLimit, maxLimit int) (auditrm.Query, error) {
	q := auditrm.Query{Email: v.Get("user"), Integration: v.Get("integration"), Tool: v.Get("tool"),
		Outcome: v.Get("outcome"), Client: v.Get("client"), Account: v.Get("account"), Limit: defLimit}
	if err := connection.CheckAccountLabel(q.Account); err != nil {
		return q, invalid("account: %s", domain.ErrorMessage(err))
	}
	var err error
	if s := v.Get("from"); s != "" {
		if q.From, err = auditrm.ParseFrom(s); err != nil {
			return q, err
		}
	}
	if s := v.Get("to"); s != "" {
		if q.To, err = auditrm.ParseTo(s); err != nil {
			return q, err
		}
	}
	if s := v.Get("after"); s != "" {
		p, err := eventstore.ParsePosition(s)
		if err != nil {
			return q, invalid("after must be a position as next_after gives it (COMMIT/PREPARE), not %q", s)
		}
		q.After = p
	}
	if s := v.Get("limit"); s != "" || v.Has("limit") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return q, invalid("limit must be a whole number from 1 to %d, not %q", maxLimit, s)
		}
		q.Limit = n
	}
	return q, q.Validate()
}

// list: GET /api/admin/audit. format json (default) answers one page (limit 1 to MaxLimit, default
// DefaultLimit) with next_after; jsonl and csv stream every matching record (limit optional, up to
// 1,000,000) as they are read, for large windows.
func (a *admin) list(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	format := v.Get("format")
	if format == "" {
		format = FormatJSON
	}
	var q auditrm.Query
	var err error
	switch format {
	case FormatJSON:
		q, err = parseQuery(v, DefaultLimit, MaxLimit)
	case FormatJSONL, FormatCSV:
		q, err = parseQuery(v, 0, 1_000_000)
	default:
		err = invalid("format must be json, jsonl or csv, not %q", format)
	}
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if !a.authorize(w, r, "list") {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if format == FormatJSON {
		page := ListPage{Records: []auditrm.Record{}}
		more, err := a.Records.List(r.Context(), q, func(rec auditrm.Record) error { page.Records = append(page.Records, rec); return nil })
		if err != nil {
			handlers.WriteError(w, r, a.Logger, err)
			return
		}
		if more && len(page.Records) > 0 {
			page.NextAfter = page.Records[len(page.Records)-1].Position.String()
		}
		handlers.WriteJSON(w, http.StatusOK, page)
		return
	}
	// Streaming: the first record is read before the headers go, so a storage failure before any
	// output is still a 503; after that a failure ends the body early (the client sees no final
	// newline or a short CSV) and is logged.
	var out auditrm.Writer
	started := false
	start := func() {
		if format == FormatCSV {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="workbench-audit.csv"`)
		} else {
			w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
		}
		w.WriteHeader(http.StatusOK)
		out, _ = auditrm.NewWriter(format, w)
		started = true
	}
	flusher, _ := w.(http.Flusher)
	n := 0
	_, err = a.Records.List(r.Context(), q, func(rec auditrm.Record) error {
		if !started {
			start()
		}
		if err := out.Write(rec); err != nil {
			return err
		}
		if n++; n%1000 == 0 && flusher != nil {
			if err := out.Flush(); err != nil {
				return err
			}
			flusher.Flush()
		}
		return nil
	})
	if err != nil && !started {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if !started {
		start()
	}
	if err != nil {
		a.Logger.Warn("audit export ended early", "err", err, "records", n)
		return
	}
	if err := out.Flush(); err != nil {
		a.Logger.Warn("audit export: write", "err", err)
	}
}

// asof: GET /api/admin/audit/asof?at=T[&user=EMAIL][&integration=NAME].
func (a *admin) asof(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	if v.Get("at") == "" {
		handlers.WriteError(w, r, a.Logger, invalid("at is required: an RFC 3339 time (2025-01-31T13:45:00Z) or a date (its end, UTC)"))
		return
	}
	at, err := ParseInstant(v.Get("at"))
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	q := auditrm.AsOfQuery{At: at, Email: v.Get("user"), Integration: v.Get("integration")}
	if err := q.Validate(); err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if !a.authorize(w, r, "asof") {
		return
	}
	res, err := a.AsOf(r.Context(), q)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	handlers.WriteJSON(w, http.StatusOK, res)
}

// ParseInstant reads an instant: an RFC 3339 time, or a date meaning the last instant of that day
// (UTC), so "as of 2025-03-01" includes everything done that day.
func ParseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.Parse("2006-01-02", s); err == nil {
		return d.AddDate(0, 0, 1).Add(-time.Nanosecond).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, invalid("%q is neither an RFC 3339 time (2025-01-31T13:45:00Z) nor a date (2025-01-31)", s)
	}
	return t.UTC(), nil
}

// blast: GET /api/admin/audit/blast-radius?api_key=ID | oauth_client=ID | session=ID | agent=ID
// [&format=html].
func (a *admin) blast(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	var qs []auditrm.BlastQuery
	for _, k := range []struct{ param, kind string }{
		{"api_key", auditrm.CredentialAPIKey}, {"oauth_client", auditrm.CredentialOAuthClient}, {"session", auditrm.CredentialCurlSession},
		{"agent", auditrm.CredentialAgent},
	} {
		if v.Has(k.param) {
			qs = append(qs, auditrm.BlastQuery{Kind: k.kind, ID: v.Get(k.param)})
		}
	}
	if len(qs) != 1 {
		handlers.WriteError(w, r, a.Logger, invalid("name exactly one credential: api_key, oauth_client, session or agent"))
		return
	}
	q := qs[0]
	if err := q.Validate(); err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	format := v.Get("format")
	if format != "" && format != FormatJSON && format != FormatHTML {
		handlers.WriteError(w, r, a.Logger, invalid("format must be json or html, not %q", format))
		return
	}
	if !a.authorize(w, r, "blast_radius") {
		return
	}
	rep, err := a.BlastRadius(r.Context(), q)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if format == FormatHTML {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		if err := WriteBlastHTML(w, rep); err != nil {
			a.Logger.Warn("blast radius report: write", "err", err)
		}
		return
	}
	handlers.WriteJSON(w, http.StatusOK, rep)
}

// whatIf: GET /api/admin/audit/what-if?switch=<scope>:<tool>=off[&switch=...][&days=30], the scope
// platform, org:<id>, guild:<id> or agent:<id> (projections/auditrm.ParseSwitch).
func (a *admin) whatIf(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	var q auditrm.WhatIfQuery
	for _, s := range v["switch"] {
		p, err := auditrm.ParseSwitch(s)
		if err != nil {
			handlers.WriteError(w, r, a.Logger, err)
			return
		}
		q.Switches = append(q.Switches, p)
	}
	if d := v.Get("days"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 {
			handlers.WriteError(w, r, a.Logger, invalid("days must be a whole number of days, not %q", d))
			return
		}
		q.Days = n
	}
	if err := q.Validate(); err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if !a.authorize(w, r, "what_if") {
		return
	}
	rep, err := a.WhatIf(r.Context(), q)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	handlers.WriteJSON(w, http.StatusOK, rep)
}

// Me is the body of GET /api/admin/audit/me.
type Me struct {
	Admin   bool `json:"admin"`
	Auditor bool `json:"auditor"`
}

func (a *admin) me(w http.ResponseWriter, r *http.Request) {
	p, err := a.principal(r)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	ok, err := a.Roles.IsAuditor(r.Context(), p.ID)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	handlers.WriteJSON(w, http.StatusOK, Me{Admin: a.Roles.IsAdmin(p), Auditor: ok})
}

// target is the user named by an email, or a not-found error.
func (a *admin) target(ctx context.Context, email string) (identityrm.User, error) {
	u, err := a.Users.UserByEmail(ctx, strings.ToLower(strings.TrimSpace(email)))
	if errors.Is(err, identityrm.ErrNotFound) {
		return u, domain.Errorf(domain.CodeNotFound, "no user has the email %q (they must sign in once first)", email)
	}
	if err != nil {
		return u, &domain.Error{Code: domain.CodeUnavailable, Message: "the user store cannot be read now", Err: err}
	}
	return u, nil
}

// changing checks a state-changing request: same origin, signed in; false when it has answered.
func (a *admin) changing(w http.ResponseWriter, r *http.Request) (compliance.Principal, bool) {
	if a.SameOrigin != nil && !a.SameOrigin(r) {
		handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: "CROSS_ORIGIN", Message: "this request did not come from the workbench portal"})
		return compliance.Principal{}, false
	}
	p, err := a.principal(r)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return p, false
	}
	return p, true
}

// grant: POST /api/admin/auditors {"email": "..."}.
func (a *admin) grant(w http.ResponseWriter, r *http.Request) {
	p, ok := a.changing(w, r)
	if !ok {
		return
	}
	var body struct {
		Email string `json:"email"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || body.Email == "" {
		handlers.WriteError(w, r, a.Logger, invalid(`the body must be {"email": "..."}`))
		return
	}
	if !a.Roles.IsAdmin(p) {
		handlers.WriteError(w, r, a.Logger, domain.Errorf(domain.CodeForbidden, "only an instance admin may grant the auditor role"))
		return
	}
	u, err := a.target(r.Context(), body.Email)
	if err == nil {
		_, err = a.Roles.Grant(r.Context(), p, u.ID, u.Email)
	}
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]string{"email": u.Email, "role": "auditor"})
}

// revoke: DELETE /api/admin/auditors/{email}.
func (a *admin) revoke(w http.ResponseWriter, r *http.Request) {
	p, ok := a.changing(w, r)
	if !ok {
		return
	}
	if !a.Roles.IsAdmin(p) {
		handlers.WriteError(w, r, a.Logger, domain.Errorf(domain.CodeForbidden, "only an instance admin may revoke the auditor role"))
		return
	}
	email, err := url.PathUnescape(chi.URLParam(r, "email")) // chi gives the raw segment (the portal sends %40)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, invalid("the email in the path is not well escaped"))
		return
	}
	u, err := a.target(r.Context(), email)
	if err == nil {
		_, err = a.Roles.Revoke(r.Context(), p, u.ID)
	}
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
