// Package audittest builds event logs for the audit tests: a small deterministic one through the real
// domain deciders, the command loop and the vault (Build), a curl session appended after it as the
// proxy appends one (AppendCurlSession), and a large one of tool executions for benchmarks
// (AppendToolRuns).
package audittest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/domain/signindom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// Fixed ids and times of the log Build writes.
var (
	Ada     = uuid.MustParse("00000000-0000-4000-8000-00000000a0a0")
	Bob     = uuid.MustParse("00000000-0000-4000-8000-00000000b0b0")
	Day1    = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	AdaKey1 = uuid.MustParse("00000000-0000-4000-8000-0000000000a1")
	AdaKey2 = uuid.MustParse("00000000-0000-4000-8000-0000000000a2")
	BobKey  = uuid.MustParse("00000000-0000-4000-8000-0000000000b1")
	// BobSession is the curl session AppendCurlSession writes.
	BobSession = uuid.MustParse("00000000-0000-4000-8000-00000000c5b1")
	// ClientID and ClientName are the OAuth client AppendAccess registers; GrantID is Bob's grant to it.
	ClientID   = "mcp-client-7f3a"
	ClientName = "Claude Desktop"
	GrantID    = "grant-0001"
)

// Log describes what Build wrote.
type Log struct {
	// Events is how many events the log holds; Last is the position of the last one.
	Events int
	Last   eventstore.Position
	// Secrets are strings that must never appear in an export: API key secrets, their hashes and
	// display prefixes, and every sealed blob as the log stores it (base64).
	Secrets []string
}

var (
	conns = eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
		Initial: connection.Initial, Evolve: connection.Evolve, Decide: connection.Decide,
		Codec: eventstore.NewJSONCodec(connection.Events()...),
	}
)

type builder struct {
	ctx   context.Context
	t     testing.TB
	store eventstore.Store
	vault *vault.Vault
	log   Log
}

func (b *builder) at(d time.Duration) eventstore.Metadata {
	return eventstore.Metadata{Actor: "test", Time: Day1.Add(d)}
}

func (b *builder) createUser(id uuid.UUID, email string, d time.Duration) {
	b.t.Helper()
	if _, err := eventstore.Execute(b.ctx, b.store, identitydom.EmailStreamName(email), accounts.EmailClaims,
		identitydom.ClaimEmail{Email: email, UserID: id, At: Day1.Add(d)}, b.at(d)); err != nil {
		b.t.Fatalf("claim %s: %v", email, err)
	}
	b.user(id, identitydom.CreateUser{UserID: id, Email: email, At: Day1.Add(d)}, d)
}

func (b *builder) user(id uuid.UUID, cmd identitydom.Command, d time.Duration) {
	b.t.Helper()
	res, err := eventstore.Execute(b.ctx, b.store, identitydom.StreamName(id), accounts.Users, cmd, b.at(d))
	if err != nil {
		b.t.Fatalf("%T for %s: %v", cmd, id, err)
	}
	b.log.Last = res.Position
}

// key returns the command fields of a fresh API key and remembers its secret parts.
func (b *builder) key(user uuid.UUID) (hash, prefix string, sealed domain.Sealed) {
	b.t.Helper()
	secret, hash, prefix := identitydom.NewAPIKey()
	sealed = b.seal(user, "identity:api_key", secret)
	b.log.Secrets = append(b.log.Secrets, secret, hash, prefix)
	return hash, prefix, sealed
}

func (b *builder) seal(user uuid.UUID, purpose, plaintext string) domain.Sealed {
	b.t.Helper()
	s, err := b.vault.Seal(b.ctx, user.String(), purpose, []byte(plaintext))
	if err != nil {
		b.t.Fatalf("seal: %v", err)
	}
	b.log.Secrets = append(b.log.Secrets, base64.StdEncoding.EncodeToString(s.Blob))
	return s
}

// conn runs a connection command and returns the stream's version after it.
func (b *builder) conn(user uuid.UUID, integration string, cmd connection.Command, d time.Duration) int64 {
	b.t.Helper()
	md := b.at(d)
	md.Actor = user.String()
	res, err := eventstore.Execute(b.ctx, b.store, connection.StreamName(user, integration, ""), conns, cmd, md)
	if err != nil {
		b.t.Fatalf("%T for %s/%s: %v", cmd, user, integration, err)
	}
	b.log.Last = res.Position
	return res.Version
}

// tool appends one ToolExecuted event as the execute_tools path does.
func (b *builder) tool(n int, user uuid.UUID, integration, tool, code string, connVersion int64, d time.Duration) {
	b.t.Helper()
	args := fmt.Sprintf(`{"n":%d}`, n)
	ev := execution.ToolExecuted{
		ExecutionID: uuid.MustParse(fmt.Sprintf("00000000-0000-4000-8000-%012d", 900+n)),
		UserID:      user, Via: "api_key", ClientID: AdaKey1.String(),
		Integration: integration, Tool: tool, Success: code == "", ErrorCode: code,
		DurationMS: int64(10 * n), ConnectionVersion: connVersion, At: Day1.Add(d),
	}
	if user == Bob {
		ev.ClientID = BobKey.String()
	}
	ev.ArgsSize, ev.ArgsSHA256 = execution.Digest([]byte(args))
	if code == "" {
		ev.ResultSize, ev.ResultSHA256 = execution.Digest([]byte(`{"ok":true}`))
	}
	pos, err := AppendToolRun(b.ctx, b.store, ev)
	if err != nil {
		b.t.Fatalf("append tool run: %v", err)
	}
	b.log.Last = pos
}

// AppendToolRun appends ev to its execution stream with the metadata execute_tools gives it.
func AppendToolRun(ctx context.Context, store eventstore.Store, ev execution.ToolExecuted) (eventstore.Position, error) {
	return AppendTracedToolRun(ctx, store, ev, "")
}

// AppendTracedToolRun is AppendToolRun with the trace id its metadata names ("" for none: a store that
// traces its appends may then give it the append's).
func AppendTracedToolRun(ctx context.Context, store eventstore.Store, ev execution.ToolExecuted, traceID string) (eventstore.Position, error) {
	if err := ev.Validate(); err != nil {
		return eventstore.Position{}, err
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return eventstore.Position{}, err
	}
	md := eventstore.Metadata{Actor: ev.UserID.String(), MCPClient: ev.ClientID, CorrelationID: ev.ExecutionID.String(), Time: ev.At, TraceID: traceID}
	return store.Append(ctx, execution.StreamName(ev.ExecutionID), eventstore.NoStream, eventstore.EventData{
		ID: uuid.NewSHA1(uuid.NameSpaceOID, ev.ExecutionID[:]), Type: execution.TypeToolExecuted, SchemaVersion: 1, Data: data, Metadata: md,
	})
}

// Build writes the deterministic audit log: two users (ada@example.com, bob@example.com) over five
// days with API keys minted, rotated and revoked, a github connection that is started, connected,
// refreshed, sent to re-authorization and disconnected, a newrelic attempt that expires and a direct
// newrelic connect, tool runs (some failing, one with a name a spreadsheet would run as a formula), and
// Ada shredded at the end. Ids, times and positions (on a fresh SQLite or memory store) are fixed;
// event ids written by the command loop and the vault are random.
func Build(ctx context.Context, t testing.TB, store eventstore.Store, v *vault.Vault) Log {
	t.Helper()
	b := &builder{ctx: ctx, t: t, store: store, vault: v}
	h := time.Hour
	b.createUser(Ada, "Ada@Example.com", 0)
	b.createUser(Bob, "bob@example.com", 5*time.Minute)
	hash, prefix, sealed := b.key(Ada)
	b.user(Ada, identitydom.MintAPIKey{KeyID: AdaKey1, Hash: hash, Prefix: prefix, Sealed: sealed, At: Day1.Add(10 * time.Minute)}, 10*time.Minute)
	hash, prefix, sealed = b.key(Bob)
	b.user(Bob, identitydom.MintAPIKey{KeyID: BobKey, Hash: hash, Prefix: prefix, Sealed: sealed, At: Day1.Add(11 * time.Minute)}, 11*time.Minute)

	// Day 1: Ada connects github and runs tools.
	attempt := uuid.MustParse("00000000-0000-4000-8000-0000000a7701")
	b.conn(Ada, "github", connection.Start{AttemptID: attempt, UserID: Ada, Integration: "github", AuthMode: connection.AuthOAuth2,
		At: Day1.Add(h), ExpiresAt: Day1.Add(h + 10*time.Minute)}, h)
	cred := b.seal(Ada, "connection:github:credential", `{"access_token":"gho_secret1","refresh_token":"ghr_secret1"}`)
	b.log.Secrets = append(b.log.Secrets, "gho_secret1", "ghr_secret1")
	ver := b.conn(Ada, "github", connection.Connect{AttemptID: attempt, UserID: Ada, Integration: "github", AuthMode: connection.AuthOAuth2,
		Credential: cred, ExpiresAt: Day1.Add(9 * h), Scopes: []string{"repo", "read:user"}, AccountHint: "@octocat", At: Day1.Add(h + 2*time.Minute)}, h+2*time.Minute)
	b.tool(1, Ada, "github", "github_list_repos", "", ver, 2*h)
	b.tool(2, Ada, "github", "github_create_issue", "INVALID_ARGUMENTS", ver, 3*h)
	b.tool(3, Ada, "utils", "=HYPERLINK(\"http://evil.example\",\"click\")", "UNKNOWN_TOOL", 0, 4*h)

	// Day 2: the token is refreshed; Bob's newrelic attempt expires.
	cred = b.seal(Ada, "connection:github:credential", `{"access_token":"gho_secret2","refresh_token":"ghr_secret1"}`)
	b.log.Secrets = append(b.log.Secrets, "gho_secret2")
	ver = b.conn(Ada, "github", connection.Refresh{Generation: 1, Credential: cred, ExpiresAt: Day1.Add(33 * h), At: Day1.Add(24 * h)}, 24*h)
	b.tool(4, Ada, "github", "github_list_repos", "", ver, 25*h)
	nrAttempt := uuid.MustParse("00000000-0000-4000-8000-0000000a7702")
	b.conn(Bob, "newrelic", connection.Start{AttemptID: nrAttempt, UserID: Bob, Integration: "newrelic", AuthMode: connection.AuthAPIKey,
		At: Day1.Add(27 * h), ExpiresAt: Day1.Add(27*h + 10*time.Minute)}, 27*h)
	b.conn(Bob, "newrelic", connection.ExpirePending{AttemptID: nrAttempt, At: Day1.Add(27*h + 15*time.Minute)}, 27*h+15*time.Minute)

	// Day 3: Bob connects newrelic directly and runs tools; one needs no connection.
	cred = b.seal(Bob, "connection:newrelic:credential", `{"api_key":"NRAK-secret"}`)
	b.log.Secrets = append(b.log.Secrets, "NRAK-secret")
	ver = b.conn(Bob, "newrelic", connection.Connect{UserID: Bob, Integration: "newrelic", AuthMode: connection.AuthAPIKey,
		Credential: cred, At: Day1.Add(48 * h)}, 48*h)
	b.tool(5, Bob, "newrelic", "newrelic_query", "", ver, 49*h)
	b.tool(6, Bob, "utils", "utils_uuid", "", 0, 50*h)

	// Day 4: github refuses the refresh token; Ada rotates her key.
	b.conn(Ada, "github", connection.RequireReauth{Generation: 2, Reason: "invalid_grant", At: Day1.Add(72 * h)}, 72*h)
	b.tool(7, Ada, "github", "github_list_repos", "NOT_CONNECTED", 0, 73*h)
	hash, prefix, sealed = b.key(Ada)
	b.user(Ada, identitydom.RotateAPIKey{OldKeyID: AdaKey1, KeyID: AdaKey2, Hash: hash, Prefix: prefix, Sealed: sealed, At: Day1.Add(74 * h)}, 74*h)

	// Day 5: Ada disconnects (a reason a spreadsheet would evaluate, with quotes and a comma), revokes
	// her key and is shredded.
	b.conn(Ada, "github", connection.Disconnect{Reason: "-2+3, \"user\" asked by email", At: Day1.Add(96 * h)}, 96*h)
	b.user(Ada, identitydom.RevokeAPIKey{KeyID: AdaKey2, At: Day1.Add(97 * h)}, 97*h)
	if err := v.Shred(ctx, Ada.String(), eventstore.Metadata{Actor: "cli", Time: Day1.Add(98 * h)}); err != nil {
		t.Fatalf("shred: %v", err)
	}
	var err error
	b.log.Events, b.log.Last, err = count(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	return b.log
}

// AppendCurlSession appends, after Build's log, the curl session Bob mints on day 3 for newrelic
// (through his API key) and the two requests made under it: a GraphQL query the upstream answers, and a
// DELETE the proxy refuses. The events and their metadata are those app/curlsessions writes: the mint
// first in the session's stream, the requests after it with their request id as event id. It returns
// the position of the last one.
func AppendCurlSession(ctx context.Context, store eventstore.Store) (eventstore.Position, error) {
	codec := eventstore.NewJSONCodec(curlsession.Events()...)
	stream := curlsession.SessionStreamName(BobSession)
	minted := Day1.Add(51 * time.Hour)
	mint := curlsession.SessionMinted{SessionID: BobSession, UserID: Bob, Via: "api_key", ClientID: BobKey.String(),
		Integrations: []string{"newrelic"}, ExpiresAt: minted.Add(curlsession.TTL), At: minted}
	requests := []curlsession.RequestProxied{
		{RequestID: uuid.MustParse("00000000-0000-4000-8000-00000000c501"), SessionID: BobSession, UserID: Bob,
			Integration: "newrelic", Method: "POST", Path: "/graphql", QueryKeys: []string{"account", "nrql"}, Status: 200,
			RequestBytes: 182, ResponseBytes: 4096, DurationMS: 240, ConnectionVersion: 3, At: minted.Add(time.Minute)},
		{RequestID: uuid.MustParse("00000000-0000-4000-8000-00000000c502"), SessionID: BobSession, UserID: Bob,
			Integration: "newrelic", Method: "DELETE", Path: "/v2/alerts_policies/7.json", Status: 405, ErrorCode: "METHOD_NOT_ALLOWED",
			DurationMS: 0, At: minted.Add(2 * time.Minute)},
	}
	encode := func(id uuid.UUID, ev interface {
		domain.Event
		Validate() error
	}, md eventstore.Metadata) (eventstore.EventData, error) {
		if err := ev.Validate(); err != nil {
			return eventstore.EventData{}, err
		}
		typ, sv, data, err := codec.Encode(ev)
		if err != nil {
			return eventstore.EventData{}, err
		}
		return eventstore.EventData{ID: id, Type: typ, SchemaVersion: sv, Data: data, Metadata: md}, nil
	}
	ed, err := encode(uuid.New(), mint, eventstore.Metadata{Actor: Bob.String(), MCPClient: mint.ClientID, CorrelationID: BobSession.String(), Time: minted})
	if err != nil {
		return eventstore.Position{}, err
	}
	if _, err := store.Append(ctx, stream, eventstore.NoStream, ed); err != nil {
		return eventstore.Position{}, fmt.Errorf("append the mint: %w", err)
	}
	var batch []eventstore.EventData
	for _, r := range requests {
		ed, err := encode(r.RequestID, r, eventstore.Metadata{Actor: Bob.String(), CorrelationID: BobSession.String(), CausationID: r.RequestID.String(), Time: r.At})
		if err != nil {
			return eventstore.Position{}, err
		}
		batch = append(batch, ed)
	}
	pos, err := store.Append(ctx, stream, eventstore.Any, batch...)
	if err != nil {
		return eventstore.Position{}, fmt.Errorf("append the requests: %w", err)
	}
	return pos, nil
}

// AppendAccess appends, after AppendCurlSession's events, Bob's access to Workbench on day 5, as the
// sign-in, OAuth and MCP code write it: an operator issues him a one-time sign-in link and he signs
// in with it; an MCP client registers; Bob grants it access; it runs a tool on his behalf; he revokes
// it in the portal. It returns what must never appear in an export (the link's hash and the grant's
// code signature and PKCE challenge) and the position of the last event.
func AppendAccess(ctx context.Context, store eventstore.Store) (secrets []string, last eventstore.Position, err error) {
	codec := eventstore.NewJSONCodec(append(signindom.Events(), oauthdom.Events()...)...)
	at := Day1.Add(99 * time.Hour)
	linkHash := strings.Repeat("ab", 32)
	codeSig, challenge := "code-signature-secret", "pkce-challenge-secret"
	secrets = []string{linkHash, codeSig, challenge}
	appends := []struct {
		stream string
		ev     domain.Event
		md     eventstore.Metadata
	}{
		{signindom.StreamName(linkHash), signindom.LinkIssued{LinkHash: linkHash, UserID: Bob, Email: "bob@example.com", Purpose: "cli",
			IssuedAt: at, ExpiresAt: at.Add(signindom.LinkTTL)}, eventstore.Metadata{Actor: "system", Time: at}},
		{signindom.StreamName(linkHash), signindom.LinkRedeemed{LinkHash: linkHash, UserID: Bob, RedeemedAt: at.Add(2 * time.Minute)},
			eventstore.Metadata{Actor: "system", Time: at.Add(2 * time.Minute)}},
		{oauthdom.ClientStreamName(ClientID), oauthdom.ClientRegistered{ClientID: ClientID, ClientName: ClientName,
			RedirectURIs: []string{"http://127.0.0.1:33418/callback"}, GrantTypes: []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"}, Scopes: []string{"mcp"}, RegisteredAt: at.Add(3 * time.Minute)},
			eventstore.Metadata{Actor: "anonymous", Time: at.Add(3 * time.Minute)}},
		{oauthdom.GrantStreamName(GrantID), oauthdom.CodeIssued{RequestID: GrantID, ClientID: ClientID, UserID: Bob, CodeSignature: codeSig,
			Scopes: []string{"mcp"}, RedirectURI: "http://127.0.0.1:33418/callback", CodeChallenge: challenge, CodeChallengeMethod: "S256",
			RequestedAt: at.Add(4 * time.Minute), ExpiresAt: at.Add(5 * time.Minute), IssuedAt: at.Add(4 * time.Minute)},
			eventstore.Metadata{Actor: Bob.String(), Time: at.Add(4 * time.Minute)}},
	}
	for _, a := range appends {
		typ, sv, data, err := codec.Encode(a.ev)
		if err != nil {
			return nil, last, err
		}
		if last, err = store.Append(ctx, a.stream, eventstore.Any, eventstore.EventData{
			ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: a.md,
		}); err != nil {
			return nil, last, fmt.Errorf("append %s: %w", typ, err)
		}
	}
	run := execution.ToolExecuted{
		ExecutionID: uuid.MustParse("00000000-0000-4000-8000-000000000999"), UserID: Bob, Via: "oauth", ClientID: ClientID,
		Integration: "utils", Tool: "utils_uuid", Success: true, DurationMS: 3, At: at.Add(10 * time.Minute),
	}
	run.ArgsSize, run.ArgsSHA256 = execution.Digest([]byte(`{}`))
	run.ResultSize, run.ResultSHA256 = execution.Digest([]byte(`{"ok":true}`))
	if _, err := AppendToolRun(ctx, store, run); err != nil {
		return nil, last, err
	}
	typ, sv, data, err := codec.Encode(oauthdom.RefreshTokensRevoked{RequestID: GrantID, Reason: oauthdom.ReasonUser, RevokedAt: at.Add(20 * time.Minute)})
	if err != nil {
		return nil, last, err
	}
	last, err = store.Append(ctx, oauthdom.GrantStreamName(GrantID), eventstore.Any, eventstore.EventData{
		ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data, Metadata: eventstore.Metadata{Actor: Bob.String(), Time: at.Add(20 * time.Minute)},
	})
	return secrets, last, err
}

func count(ctx context.Context, store eventstore.Store) (int, eventstore.Position, error) {
	n, from := 0, eventstore.Start
	for {
		envs, err := store.ReadAll(ctx, from, 1000)
		if err != nil {
			return 0, from, err
		}
		if len(envs) == 0 {
			return n, from, nil
		}
		n += len(envs)
		from = envs[len(envs)-1].Position
	}
}

// AppendToolRuns appends n successful tool runs of user, spread over integrations and one second
// apart from start, from `appenders` goroutines (so the store group-commits them).
func AppendToolRuns(ctx context.Context, store eventstore.Store, user uuid.UUID, start time.Time, n, appenders int) error {
	var wg sync.WaitGroup
	errs := make(chan error, appenders)
	integrations := []string{"github", "newrelic", "utils"}
	for a := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := a; i < n; i += appenders {
				ev := execution.ToolExecuted{
					ExecutionID: uuid.New(), UserID: user, Via: "api_key", ClientID: "bench",
					Integration: integrations[i%len(integrations)], Tool: "bench_tool", Success: true,
					DurationMS: int64(i % 500), ConnectionVersion: 2, At: start.Add(time.Duration(i) * time.Second),
				}
				ev.ArgsSize, ev.ArgsSHA256 = execution.Digest([]byte(fmt.Sprint(i)))
				ev.ResultSize, ev.ResultSHA256 = execution.Digest([]byte("ok"))
				if _, err := AppendToolRun(ctx, store, ev); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
