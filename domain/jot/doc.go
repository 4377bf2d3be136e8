// Package jot is the write side of jots: small static sites an agent deploys and Workbench serves at
// /j/<name>/ (spec, workbench-concepts.md: "Jot").
//
// One stream per name ("jot-<name>") holds everything about it, so the stream is what makes names
// global and locked to their creator: the first UploadAuthorized claims the name for its creator, and
// any later command by another user is refused with CodeForbidden. Deleting a jot releases the name.
// So does a claim never used: a name claimed but not deployed is held only while one of its uploads
// is pending, and is free again once the last one expires (State.Holder). That expiry is derived on
// every decision from the upload's ExpiresAt and the command's time, not kept by a timer, so a
// restart, another replica or a rebuild cannot lose it; the next claim by another user starts the
// name afresh.
//
// A deploy has two steps. deploy_jot records UploadAuthorized: the sha256 of a single-use upload token,
// its expiry, the settings the jot will have, and the jot's deploy generation at that moment. The
// upload then records Deployed, carrying the complete file manifest; Decide accepts it only while the
// upload is pending, unexpired, and no other deploy (or delete) has landed since it was authorized.
// Two uploads racing for one name therefore end with one winner and one clean refusal: the command loop
// appends with the expected version it read, and the loser decides again against the winner's state.
//
// update_jot records Updated (some files replaced or added; the event carries the whole new manifest)
// and/or AccessChanged (access, password hash or CORS). delete_jot records Deleted. Every event carries
// the manifest (paths, sizes, sha256, content types) so a read model can be rebuilt from the log alone;
// file bodies live in a content-addressed blob store outside the log.
//
// Passwords reach the domain only as hashes; hashing and checking them is app/jots' business.
package jot
