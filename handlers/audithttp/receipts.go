package audithttp

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/auditrm"
)

// MonthUsage is one month of a connection's use in the receipts summary.
type MonthUsage struct {
	Month           string           `json:"month"` // YYYY-MM, UTC
	ToolRuns        int64            `json:"tool_runs"`
	Failed          int64            `json:"failed"`
	ProxiedRequests int64            `json:"proxied_requests"`
	Clients         map[string]int64 `json:"clients"` // MCP client (API key id or OAuth client id) → uses
	Tools           map[string]int64 `json:"tools"`
	// Accounts counts the tool runs and proxied requests by the label of the account they used.
	Accounts map[string]int64 `json:"accounts"`
}

// Summary is the body of GET /api/audit/receipts/summary.
type Summary struct {
	Integration string       `json:"integration"`
	Months      []MonthUsage `json:"months"` // newest first
}

// MountReceipts mounts the usage receipts of the signed-in user's connections (issue 15, item 8):
//
//	GET /api/audit/receipts?integration=NAME[&client=&tool=&outcome=&from=&to=&after=&limit=]
//	    the connection's timeline: what used it (tool runs and proxied requests, with the MCP client),
//	    and its own connect, refresh and disconnect records, in log order, paged like the admin list
//	GET /api/audit/receipts/summary?integration=NAME
//	    a monthly summary: runs, failures, proxied requests, by client and by tool
//
// Only the user's own records are read (the read model's user column), so no role is needed.
func MountReceipts(r chi.Router, userOf func(*http.Request) (uuid.UUID, bool), records Lister, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	query := func(w http.ResponseWriter, r *http.Request, defLimit, maxLimit int) (auditrm.Query, bool) {
		user, ok := userOf(r)
		if !ok || user == uuid.Nil {
			handlers.WriteError(w, r, log, domain.Errorf(domain.CodeUnauthenticated, "sign in to see your usage receipts"))
			return auditrm.Query{}, false
		}
		v := r.URL.Query()
		if strings.TrimSpace(v.Get("integration")) == "" {
			handlers.WriteError(w, r, log, invalid("integration is required: receipts are per connection"))
			return auditrm.Query{}, false
		}
		v.Del("user") // never another user's
		q, err := parseQuery(v, defLimit, maxLimit)
		if err != nil {
			handlers.WriteError(w, r, log, err)
			return q, false
		}
		q.UserID = user
		return q, true
	}
	r.Get("/api/audit/receipts", func(w http.ResponseWriter, r *http.Request) {
		q, ok := query(w, r, DefaultLimit, MaxLimit)
		if !ok {
			return
		}
		page := ListPage{Records: []auditrm.Record{}}
		more, err := records.List(r.Context(), q, func(rec auditrm.Record) error { page.Records = append(page.Records, rec); return nil })
		if err != nil {
			handlers.WriteError(w, r, log, err)
			return
		}
		if more && len(page.Records) > 0 {
			page.NextAfter = page.Records[len(page.Records)-1].Position.String()
		}
		w.Header().Set("Cache-Control", "no-store")
		handlers.WriteJSON(w, http.StatusOK, page)
	})
	r.Get("/api/audit/receipts/summary", func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query() // the summary covers every matching record: no page
		v.Del("limit")
		v.Del("after")
		r.URL.RawQuery = v.Encode()
		q, ok := query(w, r, 0, 1)
		if !ok {
			return
		}
		q.Limit = 0
		months := map[string]*MonthUsage{}
		_, err := records.List(r.Context(), q, func(rec auditrm.Record) error {
			if rec.Kind != auditrm.KindToolExecuted && rec.Kind != auditrm.KindRequestProxied {
				return nil
			}
			key := rec.Time.UTC().Format("2006-01")
			m := months[key]
			if m == nil {
				m = &MonthUsage{Month: key, Clients: map[string]int64{}, Tools: map[string]int64{}, Accounts: map[string]int64{}}
				months[key] = m
			}
			client := rec.ClientID
			if client == "" {
				client = "session " + rec.SessionID.String()
			}
			m.Clients[client]++
			m.Accounts[connection.NormalAccount(rec.Account)]++
			if rec.Kind == auditrm.KindToolExecuted {
				m.ToolRuns++
				m.Tools[rec.Tool]++
				if rec.Success == nil || !*rec.Success {
					m.Failed++
				}
			} else {
				m.ProxiedRequests++
			}
			return nil
		})
		if err != nil {
			handlers.WriteError(w, r, log, err)
			return
		}
		s := Summary{Integration: q.Integration, Months: []MonthUsage{}}
		for _, m := range months {
			s.Months = append(s.Months, *m)
		}
		slices.SortFunc(s.Months, func(a, b MonthUsage) int { return strings.Compare(b.Month, a.Month) })
		w.Header().Set("Cache-Control", "no-store")
		handlers.WriteJSON(w, http.StatusOK, s)
	})
}
