// Package portalsession records the early end of portal sessions, so that a signed-out cookie is
// refused on every replica. A portal session is otherwise a self-contained signed cookie
// (handlers/websession) naming a user, a session id and when it was issued; only its end is state.
//
// There is one stream per user, StreamName, with two events:
//
//   - SessionEnded: one session (sign-out) may no longer be used. ExpiresAt is when it would have
//     lapsed anyway, after which nobody needs to remember it.
//   - AllSessionsEnded: every session of the user issued at or before At is over ("sign out
//     everywhere"); sessions issued later are not affected.
//
// Decide is pure: ids and times arrive in the command. Ending a session twice, or one already covered
// by an AllSessionsEnded, records nothing (sign-out is idempotent). The read model is
// projections/portalsessionsrm; handlers/websession checks it on every request.
//
// The wiring builds the codec with eventstore.NewJSONCodec(portalsession.Events()...) and runs
// commands with eventstore.Execute; pass them as portalsession.Command(portalsession.End{...}).
package portalsession
