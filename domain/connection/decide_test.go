package connection_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

const gh = "github"

var (
	userID  = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	otherID = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	a1      = uuid.MustParse("a1a1a1a1-0000-4000-8000-000000000001")
	a2      = uuid.MustParse("a2a2a2a2-0000-4000-8000-000000000002")
	a3      = uuid.MustParse("a3a3a3a3-0000-4000-8000-000000000003")

	t0      = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) // a1 starts
	a1Exp   = t0.Add(10 * time.Minute)                    // a1's link expires
	tConn   = t0.Add(2 * time.Minute)                     // a1 connects
	credExp = tConn.Add(time.Hour)                        // the first token expires
	tRef    = credExp.Add(-10 * time.Second)              // the first refresh
	ref2Exp = tRef.Add(time.Hour)                         // the refreshed token expires
	tLater  = t0.Add(30 * time.Minute)                    // later commands: a2 starts
	a2Exp   = tLater.Add(10 * time.Minute)
	tLast   = t0.Add(35 * time.Minute) // the command under test, when later than tLater

	cred1 = sealed("one")
	cred2 = sealed("two")
	cred3 = sealed("three")
)

func sealed(s string) domain.Sealed {
	return domain.Sealed{Subject: userID.String(), KeyVersion: 1, Blob: []byte("iv-iv-iv-iv-iv-!tag-tag-tag-tag-" + s)}
}

// Events the histories are made of.
var (
	startedA1     = connection.Started{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: t0, ExpiresAt: a1Exp}
	startedA1Key  = connection.Started{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, StartedAt: t0, ExpiresAt: a1Exp}
	expiredA1     = connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: a1Exp}
	connectedA1   = connection.Connected{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred1, ExpiresAt: credExp, Scopes: []string{"repo"}, AccountHint: "octocat", ConnectedAt: tConn}
	connectedKey  = connection.Connected{UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, Credential: cred1, ConnectedAt: tConn}
	refreshed     = connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred2, ExpiresAt: ref2Exp, RefreshedAt: tRef}
	startedA2     = connection.Started{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: tLater, ExpiresAt: a2Exp}
	reauthNeeded  = connection.ReauthorizationRequired{UserID: userID, Integration: gh, Reason: "invalid_grant", At: tRef}
	disconnected1 = connection.Disconnected{UserID: userID, Integration: gh, Reason: "user request", At: tRef}
)

// The states the cases start from, by name.
var (
	none                = []domain.Event(nil)
	pending             = []domain.Event{startedA1}
	pendingKey          = []domain.Event{startedA1Key}
	attemptExpired      = []domain.Event{startedA1, expiredA1}
	connected           = []domain.Event{startedA1, connectedA1}
	connectedDirect     = []domain.Event{connectedKey}
	refreshedOnce       = []domain.Event{startedA1, connectedA1, refreshed}
	reconnecting        = []domain.Event{startedA1, connectedA1, startedA2}
	needsReauth         = []domain.Event{startedA1, connectedA1, reauthNeeded}
	needsReauthPending  = []domain.Event{startedA1, connectedA1, reauthNeeded, startedA2}
	disconnected        = []domain.Event{startedA1, connectedA1, disconnected1}
	disconnectedPending = []domain.Event{startedA1, connectedA1, disconnected1, startedA2}
	superseded          = []domain.Event{startedA1, connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpirySuperseded, At: t0.Add(time.Minute)}, connection.Started{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: t0.Add(time.Minute), ExpiresAt: a1Exp}}
)

func fold(history []domain.Event) connection.State {
	s := connection.Initial()
	for _, ev := range history {
		s = connection.Evolve(s, ev)
	}
	return s
}

type decideCase struct {
	name    string
	history []domain.Event
	cmd     connection.Command
	want    []domain.Event
	status  connection.Status // after the events, for a success
	code    domain.Code       // empty: the command succeeds
	stale   bool              // the error wraps ErrCredentialChanged
}

func runDecide(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fold(tt.history)
			got, err := connection.Decide(before, tt.cmd)
			if tt.code != "" {
				var de *domain.Error
				if !errors.As(err, &de) {
					t.Fatalf("Decide = %v, %v; want a *domain.Error with code %s", got, err, tt.code)
				}
				if de.Code != tt.code {
					t.Fatalf("error code = %s (%v), want %s", de.Code, err, tt.code)
				}
				if de.Message == "" {
					t.Errorf("error %v has no message", err)
				}
				if errors.Is(err, connection.ErrCredentialChanged) != tt.stale {
					t.Errorf("errors.Is(ErrCredentialChanged) = %v, want %v (%v)", !tt.stale, tt.stale, err)
				}
				if got != nil {
					t.Errorf("refused command emitted %v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			after := fold(append(append([]domain.Event(nil), tt.history...), got...))
			if after.Status() != tt.status {
				t.Errorf("status after = %s, want %s", after.Status(), tt.status)
			}
			checkInvariants(t, after)
			if diff := cmp.Diff(before, fold(tt.history)); diff != "" {
				t.Errorf("Decide changed the state it was given (-before +after):\n%s", diff)
			}
		})
	}
}

// checkInvariants checks what every reachable state must hold.
func checkInvariants(t *testing.T, s connection.State) {
	t.Helper()
	if !s.Exists() || s.Integration == "" {
		t.Fatal("the connection has no user or integration after a successful command")
	}
	if s.Connected() == s.Credential.IsZero() {
		t.Errorf("connected = %v but credential zero = %v", s.Connected(), s.Credential.IsZero())
	}
	if s.Connected() && s.Generation < 1 {
		t.Errorf("connected at generation %d", s.Generation)
	}
	if s.Attempt.ID != uuid.Nil && s.Attempt.Outcome == "" {
		t.Errorf("attempt %s has no outcome", s.Attempt.ID)
	}
	if s.Attempt.Outcome == connection.AttemptExpired && s.Attempt.Reason == "" {
		t.Errorf("attempt %s expired without a reason", s.Attempt.ID)
	}
}

func TestDecideStart(t *testing.T) {
	start := func(id uuid.UUID, at time.Time) connection.Start {
		return connection.Start{AttemptID: id, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, At: at, ExpiresAt: at.Add(10 * time.Minute)}
	}
	startA2 := start(a2, tLater)
	with := func(f func(*connection.Start)) connection.Start { c := startA2; f(&c); return c }
	supersededA1 := connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpirySuperseded, At: tLater.Add(-25 * time.Minute)}
	runDecide(t, []decideCase{
		{name: "none: start", history: none, cmd: start(a1, t0), want: []domain.Event{startedA1}, status: connection.StatusPending},
		{
			name: "none: start in another zone is kept in UTC", history: none,
			cmd:  connection.Start{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, At: t0.In(time.FixedZone("X", -7200)), ExpiresAt: a1Exp.In(time.FixedZone("Y", 3600))},
			want: []domain.Event{startedA1}, status: connection.StatusPending,
		},
		{
			name: "pending: a second start supersedes the first", history: pending,
			cmd:    start(a2, tLater.Add(-25*time.Minute)),
			want:   []domain.Event{supersededA1, connection.Started{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: supersededA1.At, ExpiresAt: supersededA1.At.Add(10 * time.Minute)}},
			status: connection.StatusPending,
		},
		{
			name: "pending past its expiry: the first ends as expired", history: pending,
			cmd:    startA2,
			want:   []domain.Event{connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: tLater}, startedA2},
			status: connection.StatusPending,
		},
		{
			name: "pending, joining: nothing new, the caller answers the pending attempt", history: pending,
			cmd: with(func(c *connection.Start) {
				c.At, c.ExpiresAt, c.JoinPending = supersededA1.At, supersededA1.At.Add(10*time.Minute), true
			}),
			want:   nil,
			status: connection.StatusPending,
		},
		{
			name: "pending past its expiry, joining: the first ends as expired", history: pending,
			cmd:    with(func(c *connection.Start) { c.JoinPending = true }),
			want:   []domain.Event{connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: tLater}, startedA2},
			status: connection.StatusPending,
		},
		{name: "attempt expired: start again", history: attemptExpired, cmd: startA2, want: []domain.Event{startedA2}, status: connection.StatusPending},
		{name: "connected: reconnect keeps the credential serving", history: connected, cmd: startA2, want: []domain.Event{startedA2}, status: connection.StatusConnected},
		{name: "refreshed: reconnect", history: refreshedOnce, cmd: startA2, want: []domain.Event{startedA2}, status: connection.StatusConnected},
		{
			name: "reconnecting: a third attempt supersedes the second", history: reconnecting,
			cmd:    start(a3, tLast),
			want:   []domain.Event{connection.PendingExpired{AttemptID: a2, UserID: userID, Integration: gh, Reason: connection.ExpirySuperseded, At: tLast}, connection.Started{AttemptID: a3, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: tLast, ExpiresAt: tLast.Add(10 * time.Minute)}},
			status: connection.StatusConnected,
		},
		{name: "needs reauth: reconnect", history: needsReauth, cmd: startA2, want: []domain.Event{startedA2}, status: connection.StatusPending},
		{name: "disconnected: connect again", history: disconnected, cmd: startA2, want: []domain.Event{startedA2}, status: connection.StatusPending},
		{
			name: "api key mode", history: none,
			cmd:    connection.Start{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, At: t0, ExpiresAt: a1Exp},
			want:   []domain.Event{startedA1Key},
			status: connection.StatusPending,
		},
		{name: "pending: the same attempt id again", history: pending, cmd: start(a1, tLater), code: domain.CodeConflict},
		{name: "connected: the connected attempt's id again", history: connected, cmd: start(a1, tLater), code: domain.CodeConflict},
		{name: "attempt expired: the expired attempt's id again", history: attemptExpired, cmd: start(a1, tLater), code: domain.CodeConflict},
		{name: "no attempt id", history: none, cmd: with(func(c *connection.Start) { c.AttemptID = uuid.Nil }), code: domain.CodeInvalid},
		{name: "no user id", history: none, cmd: with(func(c *connection.Start) { c.UserID = uuid.Nil }), code: domain.CodeInvalid},
		{name: "empty integration", history: none, cmd: with(func(c *connection.Start) { c.Integration = "" }), code: domain.CodeInvalid},
		{name: "upper-case integration", history: none, cmd: with(func(c *connection.Start) { c.Integration = "GitHub" }), code: domain.CodeInvalid},
		{name: "integration with a slash", history: none, cmd: with(func(c *connection.Start) { c.Integration = "git/hub" }), code: domain.CodeInvalid},
		{name: "integration starting with a hyphen", history: none, cmd: with(func(c *connection.Start) { c.Integration = "-github" }), code: domain.CodeInvalid},
		{name: "integration too long", history: none, cmd: with(func(c *connection.Start) { c.Integration = strings.Repeat("a", 65) }), code: domain.CodeInvalid},
		{name: "another user's stream", history: connected, cmd: with(func(c *connection.Start) { c.UserID = otherID }), code: domain.CodeInvalid},
		{name: "another integration's stream", history: connected, cmd: with(func(c *connection.Start) { c.Integration = "slack" }), code: domain.CodeInvalid},
		{name: "auth mode none", history: none, cmd: with(func(c *connection.Start) { c.AuthMode = connection.AuthNone }), code: domain.CodeInvalid},
		{name: "unknown auth mode", history: none, cmd: with(func(c *connection.Start) { c.AuthMode = "basic" }), code: domain.CodeInvalid},
		{name: "no time", history: none, cmd: with(func(c *connection.Start) { c.At = time.Time{} }), code: domain.CodeInvalid},
		{name: "no expiry", history: none, cmd: with(func(c *connection.Start) { c.ExpiresAt = time.Time{} }), code: domain.CodeInvalid},
		{name: "expiry not after start", history: none, cmd: with(func(c *connection.Start) { c.ExpiresAt = c.At }), code: domain.CodeInvalid},
	})
}

func TestDecideConnect(t *testing.T) {
	oauth := func(attempt uuid.UUID, at time.Time, cred domain.Sealed) connection.Connect {
		return connection.Connect{AttemptID: attempt, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred, ExpiresAt: at.Add(time.Hour), Scopes: []string{"repo"}, AccountHint: "octocat", At: at}
	}
	direct := func(mode connection.AuthMode, at time.Time, cred domain.Sealed) connection.Connect {
		return connection.Connect{UserID: userID, Integration: gh, AuthMode: mode, Credential: cred, At: at}
	}
	connectA1 := oauth(a1, tConn, cred1)
	with := func(f func(*connection.Connect)) connection.Connect { c := connectA1; f(&c); return c }
	connectedA2 := connection.Connected{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred3, ExpiresAt: tLast.Add(time.Hour), Scopes: []string{"repo"}, AccountHint: "octocat", ConnectedAt: tLast}
	directKey := func(attempt uuid.UUID, at time.Time, cred domain.Sealed) connection.Connected {
		return connection.Connected{AttemptID: attempt, UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, Credential: cred, ConnectedAt: at}
	}
	runDecide(t, []decideCase{
		{name: "pending: the callback completes the attempt", history: pending, cmd: connectA1, want: []domain.Event{connectedA1}, status: connection.StatusConnected},
		{
			name: "pending: a token that never expires, no scopes", history: pending,
			cmd:    with(func(c *connection.Connect) { c.ExpiresAt, c.Scopes, c.AccountHint = time.Time{}, []string{}, "" }),
			want:   []domain.Event{connection.Connected{AttemptID: a1, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred1, ConnectedAt: tConn}},
			status: connection.StatusConnected,
		},
		{name: "reconnecting: the new attempt replaces the credential", history: reconnecting, cmd: oauth(a2, tLast, cred3), want: []domain.Event{connectedA2}, status: connection.StatusConnected},
		{name: "needs reauth: the reconnect attempt completes", history: needsReauthPending, cmd: oauth(a2, tLast, cred3), want: []domain.Event{connectedA2}, status: connection.StatusConnected},
		{name: "disconnected: the new attempt completes", history: disconnectedPending, cmd: oauth(a2, tLast, cred3), want: []domain.Event{connectedA2}, status: connection.StatusConnected},
		{name: "none: a direct api key connect", history: none, cmd: direct(connection.AuthAPIKey, tConn, cred1), want: []domain.Event{connectedKey}, status: connection.StatusConnected},
		{
			name: "none: a direct cookie connect", history: none,
			cmd: with(func(c *connection.Connect) {
				c.AttemptID, c.AuthMode, c.Scopes, c.AccountHint = uuid.Nil, connection.AuthCookie, nil, ""
			}),
			want:   []domain.Event{connection.Connected{UserID: userID, Integration: gh, AuthMode: connection.AuthCookie, Credential: cred1, ExpiresAt: tConn.Add(time.Hour), ConnectedAt: tConn}},
			status: connection.StatusConnected,
		},
		{name: "pending api key: a direct connect completes the attempt", history: pendingKey, cmd: direct(connection.AuthAPIKey, tConn, cred1), want: []domain.Event{directKey(a1, tConn, cred1)}, status: connection.StatusConnected},
		{
			name: "pending api key past its expiry: a direct connect ends it as expired", history: pendingKey,
			cmd:    direct(connection.AuthAPIKey, tLater, cred1),
			want:   []domain.Event{connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: tLater}, directKey(uuid.Nil, tLater, cred1)},
			status: connection.StatusConnected,
		},
		{
			name: "pending oauth: a direct api key connect supersedes it", history: pending,
			cmd:    direct(connection.AuthAPIKey, tConn, cred1),
			want:   []domain.Event{connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpirySuperseded, At: tConn}, directKey(uuid.Nil, tConn, cred1)},
			status: connection.StatusConnected,
		},
		{name: "connected directly: a new api key replaces the old", history: connectedDirect, cmd: direct(connection.AuthAPIKey, tLater, cred2), want: []domain.Event{directKey(uuid.Nil, tLater, cred2)}, status: connection.StatusConnected},
		{name: "connected: a direct api key connect replaces the token", history: connected, cmd: direct(connection.AuthAPIKey, tLater, cred2), want: []domain.Event{directKey(uuid.Nil, tLater, cred2)}, status: connection.StatusConnected},
		{name: "needs reauth: a direct api key connect", history: needsReauth, cmd: direct(connection.AuthAPIKey, tLater, cred2), want: []domain.Event{directKey(uuid.Nil, tLater, cred2)}, status: connection.StatusConnected},
		{name: "disconnected: a direct api key connect", history: disconnected, cmd: direct(connection.AuthAPIKey, tLater, cred2), want: []domain.Event{directKey(uuid.Nil, tLater, cred2)}, status: connection.StatusConnected},
		{name: "attempt expired: a direct api key connect", history: attemptExpired, cmd: direct(connection.AuthAPIKey, tLater, cred2), want: []domain.Event{directKey(uuid.Nil, tLater, cred2)}, status: connection.StatusConnected},

		{name: "none: an attempt that was never started", history: none, cmd: connectA1, code: domain.CodeNotFound},
		{name: "pending: another attempt's id", history: pending, cmd: oauth(a2, tConn, cred1), code: domain.CodeConflict},
		{name: "pending: at the link's expiry", history: pending, cmd: oauth(a1, a1Exp, cred1), code: domain.CodeConflict},
		{name: "pending: after the link's expiry", history: pending, cmd: oauth(a1, tLater, cred1), code: domain.CodeConflict},
		{name: "attempt expired: its callback arrives", history: attemptExpired, cmd: connectA1, code: domain.CodeConflict},
		{name: "superseded: the old attempt's callback arrives", history: superseded, cmd: connectA1, code: domain.CodeConflict},
		{name: "connected: the same callback again", history: connected, cmd: oauth(a1, tConn.Add(time.Second), cred2), code: domain.CodeConflict},
		{name: "reconnecting: the first attempt's callback again", history: reconnecting, cmd: oauth(a1, tLast, cred2), code: domain.CodeConflict},
		{name: "needs reauth: the old attempt's callback", history: needsReauth, cmd: oauth(a1, tLast, cred2), code: domain.CodeConflict},
		{name: "disconnected: the old attempt's callback", history: disconnected, cmd: oauth(a1, tLast, cred2), code: domain.CodeConflict},
		{name: "pending: auth mode differs from the attempt's", history: pending, cmd: with(func(c *connection.Connect) { c.AuthMode = connection.AuthCookie }), code: domain.CodeInvalid},
		{name: "oauth without an attempt", history: pending, cmd: with(func(c *connection.Connect) { c.AttemptID = uuid.Nil }), code: domain.CodeInvalid},
		{name: "auth mode none", history: none, cmd: direct(connection.AuthNone, tConn, cred1), code: domain.CodeInvalid},
		{name: "unknown auth mode", history: pending, cmd: with(func(c *connection.Connect) { c.AuthMode = "" }), code: domain.CodeInvalid},
		{name: "no credential", history: pending, cmd: with(func(c *connection.Connect) { c.Credential = domain.Sealed{} }), code: domain.CodeInvalid},
		{name: "credential sealed for another subject", history: pending, cmd: with(func(c *connection.Connect) { c.Credential.Subject = otherID.String() }), code: domain.CodeInvalid},
		{name: "no time", history: pending, cmd: with(func(c *connection.Connect) { c.At = time.Time{} }), code: domain.CodeInvalid},
		{name: "credential already expired", history: pending, cmd: with(func(c *connection.Connect) { c.ExpiresAt = c.At.Add(-time.Second) }), code: domain.CodeInvalid},
		{name: "empty scope", history: pending, cmd: with(func(c *connection.Connect) { c.Scopes = []string{"repo", ""} }), code: domain.CodeInvalid},
		{name: "control character in the account hint", history: pending, cmd: with(func(c *connection.Connect) { c.AccountHint = "octo\ncat" }), code: domain.CodeInvalid},
		{name: "account hint too long", history: pending, cmd: with(func(c *connection.Connect) { c.AccountHint = strings.Repeat("x", 513) }), code: domain.CodeInvalid},
		{name: "another user's stream", history: pending, cmd: with(func(c *connection.Connect) { c.UserID = otherID; c.Credential.Subject = otherID.String() }), code: domain.CodeInvalid},
		{name: "another integration's stream", history: pending, cmd: with(func(c *connection.Connect) { c.Integration = "slack" }), code: domain.CodeInvalid},
	})
}

func TestDecideRefresh(t *testing.T) {
	refresh := func(gen int64, at time.Time, cred domain.Sealed) connection.Refresh {
		return connection.Refresh{Generation: gen, Credential: cred, ExpiresAt: at.Add(time.Hour), At: at}
	}
	refresh1 := refresh(1, tRef, cred2)
	with := func(f func(*connection.Refresh)) connection.Refresh { c := refresh1; f(&c); return c }
	runDecide(t, []decideCase{
		{name: "connected: refresh", history: connected, cmd: refresh1, want: []domain.Event{refreshed}, status: connection.StatusConnected},
		{
			name: "refreshed: refresh again, keeping the old refresh token", history: refreshedOnce,
			cmd:    connection.Refresh{Generation: 2, Credential: cred3, ExpiresAt: ref2Exp.Add(time.Hour), KeptOldRefreshToken: true, At: ref2Exp},
			want:   []domain.Event{connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred3, ExpiresAt: ref2Exp.Add(time.Hour), RefreshedAt: ref2Exp, KeptOldRefreshToken: true}},
			status: connection.StatusConnected,
		},
		{
			name: "connected: a refresh without an expiry", history: connected,
			cmd:    with(func(c *connection.Refresh) { c.ExpiresAt = time.Time{} }),
			want:   []domain.Event{connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred2, RefreshedAt: tRef}},
			status: connection.StatusConnected,
		},
		{
			name: "reconnecting: the old credential still refreshes", history: reconnecting,
			cmd:    refresh(1, tLast, cred2),
			want:   []domain.Event{connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred2, ExpiresAt: tLast.Add(time.Hour), RefreshedAt: tLast}},
			status: connection.StatusConnected,
		},
		{name: "refreshed: a refresh based on the old credential", history: refreshedOnce, cmd: refresh(1, tLast, cred3), code: domain.CodeConflict, stale: true},
		{name: "connected: a generation from the future", history: connected, cmd: refresh(2, tLast, cred3), code: domain.CodeConflict, stale: true},
		{name: "none: refresh", history: none, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "pending: refresh", history: pending, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "attempt expired: refresh", history: attemptExpired, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "needs reauth: refresh", history: needsReauth, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "needs reauth and pending: refresh", history: needsReauthPending, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "disconnected: refresh", history: disconnected, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "disconnected and pending: refresh", history: disconnectedPending, cmd: refresh1, code: domain.CodeNotConnected},
		{name: "no generation", history: connected, cmd: with(func(c *connection.Refresh) { c.Generation = 0 }), code: domain.CodeInvalid},
		{name: "no credential", history: connected, cmd: with(func(c *connection.Refresh) { c.Credential = domain.Sealed{} }), code: domain.CodeInvalid},
		{name: "credential sealed for another subject", history: connected, cmd: with(func(c *connection.Refresh) { c.Credential.Subject = "system" }), code: domain.CodeInvalid},
		{name: "no time", history: connected, cmd: with(func(c *connection.Refresh) { c.At = time.Time{} }), code: domain.CodeInvalid},
		{name: "expiry not after the refresh", history: connected, cmd: with(func(c *connection.Refresh) { c.ExpiresAt = c.At }), code: domain.CodeInvalid},
		{name: "malformed beats not connected", history: none, cmd: with(func(c *connection.Refresh) { c.At = time.Time{} }), code: domain.CodeInvalid},
	})
}

func TestDecideRequireReauth(t *testing.T) {
	reauth := connection.RequireReauth{Generation: 1, Reason: "invalid_grant", At: tRef}
	with := func(f func(*connection.RequireReauth)) connection.RequireReauth { c := reauth; f(&c); return c }
	runDecide(t, []decideCase{
		{name: "connected: invalid_grant", history: connected, cmd: reauth, want: []domain.Event{reauthNeeded}, status: connection.StatusNeedsReauth},
		{
			name: "refreshed: invalid_grant on the current credential", history: refreshedOnce,
			cmd:    connection.RequireReauth{Generation: 2, Reason: "invalid_grant", At: tLast},
			want:   []domain.Event{connection.ReauthorizationRequired{UserID: userID, Integration: gh, Reason: "invalid_grant", At: tLast}},
			status: connection.StatusNeedsReauth,
		},
		{
			name: "reconnecting: the attempt carries on", history: reconnecting,
			cmd:    with(func(c *connection.RequireReauth) { c.At = tLast }),
			want:   []domain.Event{connection.ReauthorizationRequired{UserID: userID, Integration: gh, Reason: "invalid_grant", At: tLast}},
			status: connection.StatusPending,
		},
		{name: "connected directly: a rejected api key", history: connectedDirect, cmd: with(func(c *connection.RequireReauth) { c.Reason = "401 from the provider" }),
			want: []domain.Event{connection.ReauthorizationRequired{UserID: userID, Integration: gh, Reason: "401 from the provider", At: tRef}}, status: connection.StatusNeedsReauth},
		{name: "refreshed: invalid_grant on the old credential", history: refreshedOnce, cmd: reauth, code: domain.CodeConflict, stale: true},
		{name: "none", history: none, cmd: reauth, code: domain.CodeNotConnected},
		{name: "pending", history: pending, cmd: reauth, code: domain.CodeNotConnected},
		{name: "needs reauth already", history: needsReauth, cmd: reauth, code: domain.CodeNotConnected},
		{name: "disconnected", history: disconnected, cmd: reauth, code: domain.CodeNotConnected},
		{name: "no generation", history: connected, cmd: with(func(c *connection.RequireReauth) { c.Generation = 0 }), code: domain.CodeInvalid},
		{name: "no reason", history: connected, cmd: with(func(c *connection.RequireReauth) { c.Reason = "" }), code: domain.CodeInvalid},
		{name: "no time", history: connected, cmd: with(func(c *connection.RequireReauth) { c.At = time.Time{} }), code: domain.CodeInvalid},
	})
}

func TestDecideDisconnect(t *testing.T) {
	disconnect := connection.Disconnect{Reason: "user request", At: tLast}
	gone := connection.Disconnected{UserID: userID, Integration: gh, Reason: "user request", At: tLast}
	cancelledA2 := connection.PendingExpired{AttemptID: a2, UserID: userID, Integration: gh, Reason: connection.ExpiryCancelled, At: tLast}
	runDecide(t, []decideCase{
		{name: "connected", history: connected, cmd: disconnect, want: []domain.Event{gone}, status: connection.StatusDisconnected},
		{name: "connected directly, no reason", history: connectedDirect, cmd: connection.Disconnect{At: tLast}, want: []domain.Event{connection.Disconnected{UserID: userID, Integration: gh, At: tLast}}, status: connection.StatusDisconnected},
		{name: "refreshed", history: refreshedOnce, cmd: disconnect, want: []domain.Event{gone}, status: connection.StatusDisconnected},
		{name: "needs reauth", history: needsReauth, cmd: disconnect, want: []domain.Event{gone}, status: connection.StatusDisconnected},
		{name: "reconnecting: the attempt is cancelled", history: reconnecting, cmd: disconnect, want: []domain.Event{cancelledA2, gone}, status: connection.StatusDisconnected},
		{name: "needs reauth and pending: the attempt is cancelled", history: needsReauthPending, cmd: disconnect, want: []domain.Event{cancelledA2, gone}, status: connection.StatusDisconnected},
		{name: "none", history: none, cmd: disconnect, code: domain.CodeNotFound},
		{name: "pending, never connected", history: pending, cmd: disconnect, code: domain.CodeConflict},
		{name: "attempt expired, never connected", history: attemptExpired, cmd: disconnect, code: domain.CodeConflict},
		{name: "disconnected already", history: disconnected, cmd: disconnect, code: domain.CodeConflict},
		{name: "disconnected and pending", history: disconnectedPending, cmd: disconnect, code: domain.CodeConflict},
		{name: "no time", history: connected, cmd: connection.Disconnect{Reason: "x"}, code: domain.CodeInvalid},
		{name: "control character in the reason", history: connected, cmd: connection.Disconnect{Reason: "a\x1bb", At: tLast}, code: domain.CodeInvalid},
	})
}

func TestDecideExpirePending(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "pending: at its expiry", history: pending, cmd: connection.ExpirePending{AttemptID: a1, At: a1Exp}, want: []domain.Event{expiredA1}, status: connection.StatusNone},
		{
			name: "reconnecting: the attempt expires, the credential stays", history: reconnecting,
			cmd:    connection.ExpirePending{AttemptID: a2, At: a2Exp.Add(time.Second)},
			want:   []domain.Event{connection.PendingExpired{AttemptID: a2, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: a2Exp.Add(time.Second)}},
			status: connection.StatusConnected,
		},
		{
			name: "needs reauth and pending: back to needs reauth", history: needsReauthPending,
			cmd:    connection.ExpirePending{AttemptID: a2, At: a2Exp},
			want:   []domain.Event{connection.PendingExpired{AttemptID: a2, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: a2Exp}},
			status: connection.StatusNeedsReauth,
		},
		{
			name: "disconnected and pending: back to disconnected", history: disconnectedPending,
			cmd:    connection.ExpirePending{AttemptID: a2, At: a2Exp},
			want:   []domain.Event{connection.PendingExpired{AttemptID: a2, UserID: userID, Integration: gh, Reason: connection.ExpiryTimedOut, At: a2Exp}},
			status: connection.StatusDisconnected,
		},
		{name: "pending: before its expiry", history: pending, cmd: connection.ExpirePending{AttemptID: a1, At: a1Exp.Add(-time.Nanosecond)}, code: domain.CodeConflict},
		{name: "none", history: none, cmd: connection.ExpirePending{AttemptID: a1, At: a1Exp}, code: domain.CodeNotFound},
		{name: "pending: another attempt", history: pending, cmd: connection.ExpirePending{AttemptID: a2, At: a2Exp}, code: domain.CodeConflict},
		{name: "connected: the attempt connected", history: connected, cmd: connection.ExpirePending{AttemptID: a1, At: a1Exp}, code: domain.CodeConflict},
		{name: "attempt expired already", history: attemptExpired, cmd: connection.ExpirePending{AttemptID: a1, At: tLater}, code: domain.CodeConflict},
		{name: "superseded: the old attempt", history: superseded, cmd: connection.ExpirePending{AttemptID: a1, At: tLater}, code: domain.CodeConflict},
		{name: "needs reauth: the connected attempt", history: needsReauth, cmd: connection.ExpirePending{AttemptID: a1, At: tLast}, code: domain.CodeConflict},
		{name: "disconnected: the connected attempt", history: disconnected, cmd: connection.ExpirePending{AttemptID: a1, At: tLast}, code: domain.CodeConflict},
		{name: "connected directly: no attempt at all", history: connectedDirect, cmd: connection.ExpirePending{AttemptID: a1, At: tLast}, code: domain.CodeConflict},
		{name: "reconnecting: the connected attempt", history: reconnecting, cmd: connection.ExpirePending{AttemptID: a1, At: tLast}, code: domain.CodeConflict},
		{name: "no attempt id", history: pending, cmd: connection.ExpirePending{At: a1Exp}, code: domain.CodeInvalid},
		{name: "no time", history: pending, cmd: connection.ExpirePending{AttemptID: a1}, code: domain.CodeInvalid},
	})
}

func TestDecideNoCommand(t *testing.T) {
	if _, err := connection.Decide(fold(connected), nil); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("Decide(nil) = %v, want CodeInvalid", err)
	}
}
