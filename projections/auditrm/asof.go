package auditrm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/profile"
)

// Holding is one connection as it stood at an instant, folded from the log (AsOf): who held a
// credential for what, since when, with which scopes, and who made it and through which client. It
// holds no credential, only its generation.
type Holding struct {
	UserID      uuid.UUID `json:"user_id"`
	Email       string    `json:"email,omitempty"`
	Integration string    `json:"integration"`
	// Account is the label of the user's account (each account is a connection of its own).
	Account string `json:"account"`
	// Status is the connection's status at the instant: connected, pending, needs_reauth,
	// disconnected or none (an attempt that expired before anything was stored).
	Status   string `json:"status"`
	AuthMode string `json:"auth_mode,omitempty"`
	// Generation counts the credentials held up to the instant (every connect and refresh adds one).
	Generation  int64     `json:"credential_generation"`
	Scopes      []string  `json:"scopes,omitempty"`
	AccountHint string    `json:"account_hint,omitempty"`
	ConnectedAt time.Time `json:"connected_at,omitzero"`
	RefreshedAt time.Time `json:"refreshed_at,omitzero"`
	ExpiresAt   time.Time `json:"expires_at,omitzero"`
	Reason      string    `json:"reason,omitempty"`
	// CreatedAt, CreatedBy and CreatedVia are the time, actor and MCP client (metadata) of the stream's
	// first event; ConnectedBy and ConnectedVia those of the last connect before the instant.
	CreatedAt    time.Time `json:"created_at"`
	CreatedBy    string    `json:"created_by,omitempty"`
	CreatedVia   string    `json:"created_via,omitempty"`
	ConnectedBy  string    `json:"connected_by,omitempty"`
	ConnectedVia string    `json:"connected_via,omitempty"`
	// Version is the connection stream's version at the instant; Position the log position of that
	// event.
	Version  int64               `json:"version"`
	Position eventstore.Position `json:"position"`
}

// AsOfQuery selects what AsOf folds: the log up to At (inclusive), optionally one user's (by
// normalised email) or one integration's connections.
type AsOfQuery struct {
	At          time.Time
	Email       string
	Integration string
	// Opener opens the sealed profiles of newer user_created events (the vault); without one their
	// users' emails are empty and an email filter cannot match them.
	Opener profile.Opener
}

// Validate checks the query and normalises the email; its errors are CodeInvalid.
func (q *AsOfQuery) Validate() error {
	if q.At.IsZero() {
		return domain.Errorf(domain.CodeInvalid, "the instant is required (an RFC 3339 time or a date)")
	}
	if q.Email != "" {
		e, err := identitydom.NormalizeEmail(q.Email)
		if err != nil {
			return domain.Errorf(domain.CodeInvalid, "user: %s", domain.ErrorMessage(err))
		}
		q.Email = e
	}
	q.Integration = strings.TrimSpace(q.Integration)
	return nil
}

// AsOfResult is the answer of AsOf.
type AsOfResult struct {
	At       time.Time `json:"at"`
	Holdings []Holding `json:"connections"`
	// Scanned is how many events were read; Through the position of the last one.
	Scanned int64               `json:"events_scanned"`
	Through eventstore.Position `json:"through"`
}

// AsOf folds the log from its start, with the connection decider's own Evolve, into every connection
// as it stood at q.At: each connection event counts when its metadata time (when it was decided) is at
// or before q.At. It never reads a read model: the answer is what the log says, whatever the current
// tables hold. Event times are not monotonic in the log (replicas' clocks differ), so the whole log is
// read, as Replay does; the time filter is applied to every event. Holdings come sorted by email, then
// integration, then account.
func AsOf(ctx context.Context, store eventstore.Store, q AsOfQuery) (AsOfResult, error) {
	if err := q.Validate(); err != nil {
		return AsOfResult{}, err
	}
	codec := eventstore.NewJSONCodec(connection.Events()...)
	users := eventstore.NewJSONCodec(identitydom.Events()...)
	type conn struct {
		state connection.State
		h     Holding
	}
	conns := map[string]*conn{}
	emails := map[uuid.UUID]string{}
	res := AsOfResult{At: q.At.UTC()}
	from := eventstore.Start
	for {
		envs, err := store.ReadAll(ctx, from, replayBatch)
		if err != nil {
			return AsOfResult{}, fmt.Errorf("audit asof: read the log after %s: %w", from, err)
		}
		if len(envs) == 0 {
			break
		}
		for _, env := range envs {
			res.Scanned++
			if env.Type == identitydom.TypeUserCreated {
				ev, err := users.Decode(env.Type, env.SchemaVersion, env.Data)
				if err != nil {
					return AsOfResult{}, decodeError(env, err)
				}
				uc := ev.(identitydom.UserCreated)
				email, _, err := profile.Open(ctx, q.Opener, uc)
				switch {
				case errors.Is(err, profile.ErrSealed), errors.Is(err, profile.ErrNoOpener):
					email = "" // erased, or no vault given: the email is not readable here
				case err != nil:
					return AsOfResult{}, fmt.Errorf("audit asof: %w", err)
				}
				emails[uc.UserID] = email
				continue
			}
			if !strings.HasPrefix(env.Type, "connection.") || env.Metadata.Time.After(q.At) {
				continue
			}
			ev, err := codec.Decode(env.Type, env.SchemaVersion, env.Data)
			if err != nil {
				return AsOfResult{}, decodeError(env, err)
			}
			c := conns[env.Stream]
			if c == nil {
				c = &conn{state: connection.Initial()}
				c.h.CreatedAt, c.h.CreatedBy, c.h.CreatedVia = env.Metadata.Time.UTC(), env.Metadata.Actor, env.Metadata.MCPClient
				conns[env.Stream] = c
			}
			c.state = connection.Evolve(c.state, ev)
			c.h.Version, c.h.Position = env.Version, env.Position
			if _, ok := ev.(connection.Connected); ok {
				c.h.ConnectedBy, c.h.ConnectedVia = env.Metadata.Actor, env.Metadata.MCPClient
			}
		}
		from = envs[len(envs)-1].Position
		res.Through = from
	}
	for _, c := range conns {
		s := c.state
		h := c.h
		h.UserID, h.Email, h.Integration, h.Account = s.UserID, emails[s.UserID], s.Integration, s.Label()
		if q.Email != "" && h.Email != q.Email || q.Integration != "" && h.Integration != q.Integration {
			continue
		}
		h.Status, h.AuthMode, h.Generation = string(s.Status()), string(s.AuthMode), s.Generation
		h.Scopes, h.AccountHint, h.Reason = s.Scopes, s.AccountHint, s.Reason
		h.ConnectedAt, h.RefreshedAt, h.ExpiresAt = s.ConnectedAt.UTC(), s.RefreshedAt.UTC(), s.ExpiresAt.UTC()
		res.Holdings = append(res.Holdings, h)
	}
	slices.SortFunc(res.Holdings, func(a, b Holding) int {
		if c := strings.Compare(a.Email, b.Email); c != 0 {
			return c
		}
		if c := strings.Compare(a.UserID.String(), b.UserID.String()); c != 0 {
			return c
		}
		if c := strings.Compare(a.Integration, b.Integration); c != 0 {
			return c
		}
		return strings.Compare(a.Account, b.Account)
	})
	if res.Holdings == nil {
		res.Holdings = []Holding{}
	}
	return res, nil
}
