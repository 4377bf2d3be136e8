// Package connections is the use case of a user's connection to an integration: how it is made,
// stored, used, renewed and ended. It is the only writer of the connection aggregate
// (domain/connection) and of the two streams beside it, the OAuth handshake and the refresh lease:
// it holds each one's single eventstore.Aggregate value, and commands.go is the one place that runs
// the command loop (eventstore.Execute) on them. Handlers call the Service and never append to these
// streams themselves. Lists and statuses are read from the read model (projections/connectionsrm).
//
// A connect callback reads top-down: handlers/portalhttp parses the provider's redirect and calls
// Service.Callback (callback.go), whose steps, in the order they run, are functions of that file;
// each writes through commands.go with a domain/connection command, which the domain decides and the
// event store appends.
//
// Files: connect.go (connect and claim-link redemption), handshake.go (PKCE and the consent URL),
// callback.go, apikey.go, disconnect.go, access.go (a tool call's credential), refresh.go (lazy
// refresh), wait.go (wait_for_connection), sweep.go, document.go (the sealed credential),
// tokenclient.go and postconsent.go (the provider's token endpoint and post-consent lookup), link.go
// (the signed claim link).
//
// It owns
//
//   - the credential document (Document), the JSON a connection's domain.Sealed seals under the
//     user's data key with the purpose "connection:<integration>:credential";
//   - the connect flow (spec, Connecting an integration): Connect starts an attempt and mints a signed
//     claim link <SERVER_PUBLIC_URL>/connect/<token> naming the attempt, the user, the integration and
//     its expiry (LinkTTL, ten minutes, which must cover the whole handshake); Redeem, for the
//     signed-in portal user the link names and no one else, makes the PKCE verifier (S256) and builds
//     the provider's consent URL; Callback exchanges the code with the verifier and records the
//     connection;
//   - wait_for_connection (WaitForConnection), which wakes on the committed event delivered by the bus,
//     so it completes whichever replica handled the callback, and the sweep (Run) that expires
//     attempts past their link and prunes those that ended over an hour ago;
//   - tool-call access (Access): the credential injector of each auth mode and getToken, which
//     refreshes lazily when the token expires within 30 seconds, and the Redactor of the values the
//     call used (secrets.go: every token getToken handed out, the stored tokens it read, the OAuth
//     client secret, an API key's secret and injected fields with Basic pairs, cookie values of 8
//     bytes or more), which app/executions applies to the tool's result and error;
//   - the portal's direct connects (ConnectAPIKey, and ConnectCookies for a bundle captured in the
//     live browser session, cookies.go) and Disconnect; Connected for list_integrations.
//
// # Nothing in memory only
//
// Where the spec keeps the pending record and the verifier in process memory, this package keeps
// them in the log: the attempt is the connection stream's Started event, and the verifier is sealed
// in a handshake stream named by the SHA-256 of the OAuth state (domain/connection, handshake.go),
// which the callback finds by hashing the state it receives, on any replica. A state is used once.
//
// # One refresh, everywhere
//
// getToken refreshes once per connection however many calls need it: in a process, a single flight
// per connection; across replicas, a claim on the credential's generation in a lease stream
// (domain/connection, refresh_lease.go) appended with the stream's expected version, so only one
// caller anywhere presents the refresh token to the provider, and the rest wait for its
// TokenRefreshed and read the new token from the log. connection.Refresh names the generation it
// replaces, so even a caller whose claim lapsed cannot store a stale token. invalid_grant withdraws
// the credential (RequireReauth); a response without a refresh token keeps the old one.
//
// No token, refresh token, verifier or API key appears in a log line or an error message.
package connections
