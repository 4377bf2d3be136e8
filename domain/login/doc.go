// Package login is the write side of connector logins and of tool switches (spec connectors.md,
// Logins, Token logins, Login settings, Tools of a login, What starts Off).
//
// A login is one sign-in to one connector owned at a scope; there is one per connector per owner, so
// its stream is named by the connector and the owner (StreamName), and a login removed and connected
// again gets a new id on the same stream. Its credentials arrive sealed; the domain never opens them.
// Every listing of its tools is an event holding the list's digest and its diff against the previous
// list, and the switches the listing wrote for tools seen for the first time.
//
// An OAuth login (oauth.go) opens with OAuthStarted, holding the sealed PKCE verifier and the nonce
// the signed state carries; the callback completes it (Connected), or closes it (a new login removed,
// a disconnected one left disconnected); refreshed tokens are a Connected of the same status, and a
// refused refresh is Disconnected.
//
// A tool switch is On or Off for one prefixed tool name at one scope (platform, organization, guild,
// agent); its stream is the scope's (SwitchStreamName). Switches inherit platform → organization →
// guild → agent: an explicit Off binds every scope below it, else the most specific explicit On
// decides, else the most specific default (projections/connectorsrm.Decide).
package login
