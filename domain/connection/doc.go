// Package connection owns a user's connection to one integration, as events: the stored credential
// that makes `connected: true` (spec, Connection), and the connect attempts that lead to it (spec,
// Connecting an integration). A user may hold several accounts of one integration, each named by a
// label; there is one stream per user, integration and account (StreamName), and the account labelled
// DefaultAccount keeps the stream name every connection had before labels existed, so its events name
// no account. Which account a call without a label uses is decided across the streams by DefaultOf
// (the latest ChooseDefault, else the oldest account holding a credential).
//
// It is pure: Decide and Evolve see only the state and the command, which carries every time and id.
// The wiring builds the codec with eventstore.NewJSONCodec(connection.Events()...) and runs commands
// with eventstore.Execute over an eventstore.Aggregate[connection.State, connection.Command,
// domain.Event]; pass commands as connection.Command(connection.Start{...}) so that the loop's type
// parameter C is the interface.
//
// # The credential
//
// The credential is opaque here: a domain.Sealed, sealed by the vault under the user's data key
// (Sealed.Subject is the user id, so shredding the user shreds every copy in the log). What it seals
// is a JSON document the credential layer defines: the access token, refresh token and token type of
// an OAuth grant, the fields of an API key, or a cookie bundle. The domain never opens it. Beside it
// the log keeps only what is not secret: the expiry, the granted scopes, an account hint.
//
// # Lifecycle
//
//	none                     --Start-->          pending
//	pending                  --Connect-->        connected     (the pending attempt, before its expiry)
//	pending                  --Start-->          pending       (the new attempt supersedes the old)
//	pending                  --ExpirePending-->  what it was before the attempt (none, needs_reauth, ...)
//	connected                --Refresh-->        connected     (generation + 1)
//	connected                --RequireReauth-->  needs_reauth  (invalid_grant)
//	connected                --Start-->          connected     (reconnecting; the old credential serves meanwhile)
//	connected                --Connect-->        connected     (a new credential replaces the old)
//	connected, needs_reauth  --Disconnect-->     disconnected  (a pending attempt is cancelled with it)
//	needs_reauth, disconnected --Start-->        pending
//
// Everything else is refused; decide_test.go has a named case for every command in every status.
//
// Status combines two things: the credential's status (CredentialStatus: none, connected,
// needs_reauth, disconnected) and the latest connect attempt (Attempt: pending, connected, expired).
// A usable credential wins: a connection that is reconnecting keeps serving tool calls with its old
// credential until the new one arrives. Otherwise a pending attempt makes it pending.
//
// # Attempts
//
// An attempt is the claim link connect() mints; its id is the connectionId an agent passes to
// wait_for_connection. Every attempt ends with exactly one event naming it: Connected (the waiter
// reports CONNECTED) or PendingExpired (EXPIRED), with the reason expired (its link ran out and
// ExpirePending recorded it), superseded (a second Start, or a direct connect of another auth mode,
// replaced it) or cancelled (Disconnect). A second Start while an attempt is pending therefore
// supersedes the first: only the newest attempt can be completed, and the old waiter hears EXPIRED
// at once instead of waiting out its timeout. Connect refuses an attempt that is not the pending one
// or whose ExpiresAt has passed, even before ExpirePending is recorded; a waiter at the deadline can
// report EXPIRED from the time alone. Only the latest attempt is kept in the state, so attempt ids
// must be fresh (uuid.New), and an id that reappears as the latest is refused.
//
// # Refresh and re-authorization
//
// getToken refreshes lazily, when NeedsRefresh(now, RefreshWindow) says the token expires within 30
// seconds. Generation counts the credentials the connection has held; Refresh and RequireReauth carry
// the generation they read, so when two callers (on one replica or several) race, the stream's
// expected version lets one append win and the loser, deciding again on the newer state, gets a
// conflict wrapping ErrCredentialChanged and re-reads rather than storing a stale token or marking a
// freshly refreshed connection as needing re-authorization. invalid_grant becomes RequireReauth: the
// credential is withdrawn and tool calls answer NOT_CONNECTED (CodeNotConnected) until a reconnect.
//
// # Error codes
//
// A malformed command is CodeInvalid whatever the state. Then: CodeNotFound when the stream has no
// events and the command needs one (Disconnect, ExpirePending, Connect naming an attempt);
// CodeNotConnected for Refresh and RequireReauth without a usable credential; CodeConflict for every
// other transition the state does not allow. Messages say what to do next.
package connection
