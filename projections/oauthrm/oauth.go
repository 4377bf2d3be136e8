package oauthrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "oauth"

// Projection keeps the OAuth read models.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection { return &Projection{codec: eventstore.NewJSONCodec(oauthdom.Events()...)} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

var _ projections.Selective = (*Projection)(nil)

// Handles implements projections.Selective: only the oauth events touch these tables.
func (*Projection) Handles(eventType string) bool { return strings.HasPrefix(eventType, "oauth.") }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "oauth_access_tokens", "oauth_refresh_tokens", "oauth_grants", "oauth_clients")
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	switch env.Type {
	case oauthdom.TypeClientRegistered, oauthdom.TypeCodeIssued, oauthdom.TypeCodeExchanged, oauthdom.TypeCodeRevoked,
		oauthdom.TypeAccessTokenIssued, oauthdom.TypeRefreshTokenIssued, oauthdom.TypeRefreshTokenRotated,
		oauthdom.TypeRefreshTokensRevoked, oauthdom.TypeAccessTokensRevoked:
	default:
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case oauthdom.ClientRegistered:
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, response_types, scopes, registered_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.ClientID, e.ClientName, jsonList(e.RedirectURIs), jsonList(e.GrantTypes),
			jsonList(e.ResponseTypes), jsonList(e.Scopes), dbtime.Format(e.RegisteredAt))
	case oauthdom.CodeIssued:
		// A grant that names no agent acts as the user's default agent; the row says so explicitly
		// (rows written before the column existed hold NULL, which the readers read the same way).
		agent := e.AgentID
		if agent == uuid.Nil {
			agent = identitydom.DefaultAgentID(e.UserID)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_grants (request_id, client_id, user_id, agent_id, code_signature, scopes, audience,
			redirect_uri, code_challenge, code_challenge_method, requested_at, code_expires_at, issued_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			e.RequestID, e.ClientID, e.UserID.String(), agent.String(), e.CodeSignature, jsonList(e.Scopes), jsonList(e.Audience), e.RedirectURI,
			e.CodeChallenge, e.CodeChallengeMethod, dbtime.Format(e.RequestedAt), dbtime.Format(e.ExpiresAt), dbtime.Format(e.IssuedAt))
	case oauthdom.CodeExchanged:
		_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET code_exchanged_at = $1 WHERE request_id = $2`, dbtime.Format(e.ExchangedAt), e.RequestID)
	case oauthdom.CodeRevoked:
		_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET code_revoked_at = $1 WHERE request_id = $2`, dbtime.Format(e.RevokedAt), e.RequestID)
	case oauthdom.AccessTokenIssued:
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_access_tokens (signature, request_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)`,
			e.Signature, e.RequestID, dbtime.Format(e.IssuedAt), dbtime.Format(e.ExpiresAt))
	case oauthdom.RefreshTokenIssued:
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_refresh_tokens (signature, request_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)`,
			e.Signature, e.RequestID, dbtime.Format(e.IssuedAt), dbtime.Nullable(e.ExpiresAt))
	case oauthdom.RefreshTokenRotated:
		_, err = tx.ExecContext(ctx, `UPDATE oauth_refresh_tokens SET rotated_at = $1 WHERE signature = $2`, dbtime.Format(e.RotatedAt), e.Signature)
	case oauthdom.RefreshTokensRevoked:
		_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET refresh_revoked_at = $1, revoke_reason = $2 WHERE request_id = $3`,
			dbtime.Format(e.RevokedAt), e.Reason, e.RequestID)
	case oauthdom.AccessTokensRevoked:
		_, err = tx.ExecContext(ctx, `UPDATE oauth_grants SET access_revoked_at = $1, revoke_reason = $2 WHERE request_id = $3`,
			dbtime.Format(e.RevokedAt), e.Reason, e.RequestID)
	}
	if err != nil {
		return fmt.Errorf("apply %s: %w", env.Type, err)
	}
	return nil
}

// ErrNotFound is returned when no row matches.
var ErrNotFound = errors.New("oauth: not found")

// Reader answers OAuth questions from the read model.
type Reader struct{ DB *sql.DB }

// Client returns a registered client.
func (r Reader) Client(ctx context.Context, id string) (oauthdom.Client, error) {
	var c oauthdom.Client
	var redirects, grants, responses, scopes, at string
	err := r.DB.QueryRowContext(ctx, `SELECT client_id, client_name, redirect_uris, grant_types, response_types, scopes, registered_at
		FROM oauth_clients WHERE client_id = $1`, id).Scan(&c.ClientID, &c.ClientName, &redirects, &grants, &responses, &scopes, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return oauthdom.Client{}, ErrNotFound
	}
	if err != nil {
		return oauthdom.Client{}, fmt.Errorf("oauth: client lookup: %w", err)
	}
	for _, f := range []struct {
		raw string
		dst *[]string
	}{{redirects, &c.RedirectURIs}, {grants, &c.GrantTypes}, {responses, &c.ResponseTypes}, {scopes, &c.Scopes}} {
		if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
			return oauthdom.Client{}, fmt.Errorf("oauth: client %s: %w", id, err)
		}
	}
	c.RegisteredAt, err = dbtime.Parse(at)
	return c, err
}

// Grant is a row of oauth_grants.
type Grant struct {
	RequestID string
	ClientID  string
	UserID    uuid.UUID
	// AgentID is the agent the grant acts as, never uuid.Nil: a grant from before agents is the
	// user's default agent's.
	AgentID             uuid.UUID
	CodeSignature       string
	Scopes              []string
	Audience            []string
	RedirectURI         string
	CodeChallenge       string
	CodeChallengeMethod string
	RequestedAt         time.Time
	CodeExpiresAt       time.Time
	IssuedAt            time.Time
	CodeExchanged       bool
	CodeRevoked         bool
	RefreshRevoked      bool
	AccessRevoked       bool
}

const grantColumns = `g.request_id, g.client_id, g.user_id, g.agent_id, g.code_signature, g.scopes, g.audience, g.redirect_uri,
	g.code_challenge, g.code_challenge_method, g.requested_at, g.code_expires_at, g.issued_at,
	g.code_exchanged_at, g.code_revoked_at, g.refresh_revoked_at, g.access_revoked_at`

func scanGrant(row interface{ Scan(...any) error }, extra ...any) (Grant, error) {
	var g Grant
	var uid, scopes, aud, requested, expires, issued string
	var agent, exchanged, codeRevoked, refreshRevoked, accessRevoked sql.NullString
	dst := append([]any{&g.RequestID, &g.ClientID, &uid, &agent, &g.CodeSignature, &scopes, &aud, &g.RedirectURI,
		&g.CodeChallenge, &g.CodeChallengeMethod, &requested, &expires, &issued,
		&exchanged, &codeRevoked, &refreshRevoked, &accessRevoked}, extra...)
	if err := row.Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Grant{}, ErrNotFound
		}
		return Grant{}, fmt.Errorf("oauth: grant lookup: %w", err)
	}
	var err error
	if g.UserID, err = uuid.Parse(uid); err != nil {
		return Grant{}, err
	}
	g.AgentID = identitydom.DefaultAgentID(g.UserID)
	if agent.Valid {
		if g.AgentID, err = uuid.Parse(agent.String); err != nil {
			return Grant{}, err
		}
	}
	if err := json.Unmarshal([]byte(scopes), &g.Scopes); err != nil {
		return Grant{}, err
	}
	if err := json.Unmarshal([]byte(aud), &g.Audience); err != nil {
		return Grant{}, err
	}
	if g.RequestedAt, err = dbtime.Parse(requested); err != nil {
		return Grant{}, err
	}
	if g.CodeExpiresAt, err = dbtime.Parse(expires); err != nil {
		return Grant{}, err
	}
	if g.IssuedAt, err = dbtime.Parse(issued); err != nil {
		return Grant{}, err
	}
	g.CodeExchanged, g.CodeRevoked = exchanged.Valid, codeRevoked.Valid
	g.RefreshRevoked, g.AccessRevoked = refreshRevoked.Valid, accessRevoked.Valid
	return g, nil
}

// Grant returns the grant of a request id.
func (r Reader) Grant(ctx context.Context, requestID string) (Grant, error) {
	return scanGrant(r.DB.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM oauth_grants g WHERE g.request_id = $1`, requestID))
}

// GrantByCode returns the grant whose code has this signature.
func (r Reader) GrantByCode(ctx context.Context, signature string) (Grant, error) {
	return scanGrant(r.DB.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM oauth_grants g WHERE g.code_signature = $1`, signature))
}

// RefreshToken is a row of oauth_refresh_tokens.
type RefreshToken struct {
	Signature string
	IssuedAt  time.Time
	ExpiresAt time.Time // zero: no expiry
	Rotated   bool
}

// GrantByRefresh returns the refresh token with this signature and its grant.
func (r Reader) GrantByRefresh(ctx context.Context, signature string) (Grant, RefreshToken, error) {
	t := RefreshToken{Signature: signature}
	var issued string
	var expires, rotated sql.NullString
	g, err := scanGrant(r.DB.QueryRowContext(ctx, `SELECT `+grantColumns+`, t.issued_at, t.expires_at, t.rotated_at
		FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.request_id = t.request_id WHERE t.signature = $1`, signature),
		&issued, &expires, &rotated)
	if err != nil {
		return Grant{}, RefreshToken{}, err
	}
	if t.IssuedAt, err = dbtime.Parse(issued); err != nil {
		return Grant{}, RefreshToken{}, err
	}
	if t.ExpiresAt, err = dbtime.ParseNull(expires); err != nil {
		return Grant{}, RefreshToken{}, err
	}
	t.Rotated = rotated.Valid
	return g, t, nil
}

// GrantByAccess returns the grant of the access token with this signature and the token's expiry.
func (r Reader) GrantByAccess(ctx context.Context, signature string) (Grant, time.Time, error) {
	var expires string
	g, err := scanGrant(r.DB.QueryRowContext(ctx, `SELECT `+grantColumns+`, t.expires_at
		FROM oauth_access_tokens t JOIN oauth_grants g ON g.request_id = t.request_id WHERE t.signature = $1`, signature), &expires)
	if err != nil {
		return Grant{}, time.Time{}, err
	}
	exp, err := dbtime.Parse(expires)
	return g, exp, err
}

// AccessRevoked reports whether the grant's access tokens were revoked early. A grant the read model
// does not know counts as revoked.
func (r Reader) AccessRevoked(ctx context.Context, requestID string) (bool, error) {
	var revoked sql.NullString
	err := r.DB.QueryRowContext(ctx, `SELECT access_revoked_at FROM oauth_grants WHERE request_id = $1`, requestID).Scan(&revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return true, fmt.Errorf("oauth: grant lookup: %w", err)
	}
	return revoked.Valid, nil
}

// UserClient is a client holding live refresh tokens for a user, as the portal lists it.
type UserClient struct {
	ClientID     string
	ClientName   string
	RedirectHost string
	Scopes       []string
	CreatedAt    time.Time // when the user first authorized one of the live grants
	LastUsedAt   time.Time // when the client last exchanged a code or refresh token
}

// ClientsOfUser lists the clients holding a refresh token for user that is neither rotated, revoked
// nor expired at now, most recently used first.
func (r Reader) ClientsOfUser(ctx context.Context, user uuid.UUID, now time.Time) ([]UserClient, error) {
	return r.clients(ctx, user, uuid.Nil, now)
}

// ClientsOfAgent is ClientsOfUser for the grants of one of user's agents (a grant from before agents
// is the default agent's).
func (r Reader) ClientsOfAgent(ctx context.Context, user, agent uuid.UUID, now time.Time) ([]UserClient, error) {
	return r.clients(ctx, user, agent, now)
}

func (r Reader) clients(ctx context.Context, user, agent uuid.UUID, now time.Time) ([]UserClient, error) {
	q := `SELECT c.client_id, c.client_name, g.redirect_uri, g.scopes, g.issued_at, t.issued_at
		FROM oauth_refresh_tokens t
		JOIN oauth_grants g ON g.request_id = t.request_id
		JOIN oauth_clients c ON c.client_id = g.client_id
		WHERE g.user_id = $1 AND g.refresh_revoked_at IS NULL AND t.rotated_at IS NULL
		  AND (t.expires_at IS NULL OR t.expires_at > $2)`
	args := []any{user.String(), dbtime.Format(now)}
	switch {
	case agent == uuid.Nil:
	case agent == identitydom.DefaultAgentID(user):
		q += ` AND (g.agent_id = $3 OR g.agent_id IS NULL)`
		args = append(args, agent.String())
	default:
		q += ` AND g.agent_id = $3`
		args = append(args, agent.String())
	}
	rows, err := r.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("oauth: clients of user: %w", err)
	}
	defer rows.Close()
	byID := map[string]*UserClient{}
	var order []string
	for rows.Next() {
		var id, name, redirect, scopes, created, used string
		if err := rows.Scan(&id, &name, &redirect, &scopes, &created, &used); err != nil {
			return nil, fmt.Errorf("oauth: clients of user: %w", err)
		}
		createdAt, err := dbtime.Parse(created)
		if err != nil {
			return nil, err
		}
		usedAt, err := dbtime.Parse(used)
		if err != nil {
			return nil, err
		}
		var sc []string
		if err := json.Unmarshal([]byte(scopes), &sc); err != nil {
			return nil, err
		}
		c, ok := byID[id]
		if !ok {
			host := ""
			if u, err := url.Parse(redirect); err == nil {
				host = u.Host
			}
			c = &UserClient{ClientID: id, ClientName: name, RedirectHost: host, CreatedAt: createdAt, LastUsedAt: usedAt}
			byID[id] = c
			order = append(order, id)
		}
		for _, s := range sc {
			if !slices.Contains(c.Scopes, s) {
				c.Scopes = append(c.Scopes, s)
			}
		}
		if createdAt.Before(c.CreatedAt) {
			c.CreatedAt = createdAt
		}
		if usedAt.After(c.LastUsedAt) {
			c.LastUsedAt = usedAt
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("oauth: clients of user: %w", err)
	}
	out := make([]UserClient, 0, len(order))
	for _, id := range order {
		c := byID[id]
		slices.Sort(c.Scopes)
		out = append(out, *c)
	}
	slices.SortStableFunc(out, func(a, b UserClient) int { return b.LastUsedAt.Compare(a.LastUsedAt) })
	return out, nil
}

// AgentGrants returns the request ids of user's grants that act as agent and still hold an
// outstanding code, a refresh-token family or access tokens that were not revoked.
func (r Reader) AgentGrants(ctx context.Context, user, agent uuid.UUID) ([]string, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT request_id FROM oauth_grants
		WHERE user_id = $1 AND agent_id = $2
		  AND ((code_exchanged_at IS NULL AND code_revoked_at IS NULL) OR refresh_revoked_at IS NULL OR access_revoked_at IS NULL)
		ORDER BY request_id`, user.String(), agent.String())
	if err != nil {
		return nil, fmt.Errorf("oauth: grants of agent: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// RevocableGrants returns the request ids of user's grants for client that still hold an outstanding
// code or a refresh-token family that was not revoked.
func (r Reader) RevocableGrants(ctx context.Context, user uuid.UUID, clientID string) ([]string, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT request_id FROM oauth_grants
		WHERE user_id = $1 AND client_id = $2
		  AND ((code_exchanged_at IS NULL AND code_revoked_at IS NULL) OR refresh_revoked_at IS NULL)
		ORDER BY request_id`, user.String(), clientID)
	if err != nil {
		return nil, fmt.Errorf("oauth: grants of client: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
