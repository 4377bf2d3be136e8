// Package browser is the write side of a user's browser session: the facts the log keeps about the one
// headless Chromium each user has (started, stopped, profile reset), what was done through it (cookies
// captured for a cookie integration) and who drives it (control handed to a person through the live
// view, and taken back). One stream per user, StreamName.
//
// The Chromium itself lives in app/browserpool; app/browser appends these events as the pool reports
// its changes and as the live view and capture act. State folds the stream into whether a session runs
// and whether a person has control; Decide turns each command into its event, or into nothing when the
// state already says so (a stop of a session not running, a hand-over while a person already drives).
package browserdom
