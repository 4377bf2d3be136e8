// Package jots runs the jot use cases (spec, workbench-concepts.md: "Jot"): deploy_jot, the upload
// that follows it, update_jot, list_jot_files and delete_jot, and what the jots host needs to serve a
// jot (its settings, its manifest, its file bodies, its password check). It also holds the two pieces
// that make an upload safe:
//
//   - Extract reads a gzip tarball into memory under hard limits (bytes counted as they are
//     decompressed, never taken from headers; a file count; a cap on the raw tar stream), refusing
//     path traversal, absolute paths, symlinks, hardlinks, device files and setuid/setgid bits, each
//     with its own ArchiveError kind and message. Nothing touches the disk before the whole archive has
//     been read and accepted, so a decompression bomb stops at the cap in memory bounded by the limit.
//   - BlobStore keeps file bodies by sha256: FSBlobs (a directory; the default) or PostgresBlobs (the
//     jot_blobs table; used when DATABASE_URL is PostgreSQL so every replica serves the same jots).
//
// A deploy is staged and switched in atomically: the archive is extracted and every body written to the
// content-addressed store (invisible until referenced), and only then is one Deployed event appended
// with the complete manifest. A failed upload appends nothing and the jot keeps serving what it served.
// Two uploads racing for one name end with one winner: the command loop appends with the stream
// version it read, and the loser's retry decides against the winner's state (domain/jot).
//
// Extract also refuses names a filesystem or a browser could confuse: two paths equal once both are
// in Unicode NFC (precomposed "é" against "e" and a combining accent, as macOS writes them), and a
// file and a directory of one name ("docs" beside "docs/index.html"). Case is left alone: jots are
// served by exact path, and many sites rely on "README" beside "readme".
//
// # Resource limits
//
// Names. A name claimed by deploy_jot and never uploaded to is held only while one of its upload URLs
// is pending (domain/jot: State.Holder); after that it is free for anyone. The expiry is derived on
// read from the log (the upload's ExpiresAt against the command's time), so it survives restarts and
// needs no timer. A user holds at most Limits.MaxJotsPerUser names (JOTS_MAX_PER_USER), live jots and
// pending claims together, counted from the read model (jots and jot_claims). deploy_jot waits for its
// claim to be projected, so a client claiming in a loop stops at the limit; claims sent in parallel can
// pass it by as many as are in flight, which is bounded and harmless.
//
// Bytes. A user's live jots hold at most Limits.QuotaBytes (JOTS_QUOTA_BYTES), counted as the manifests
// list them (a body two jots share counts twice: that is what the user asked to serve). The check runs
// after extraction and before any body is stored; a redeploy counts only what replaces the jot's files.
//
// Blob garbage. A body is live while a live jot's manifest names its sha256 (the read model's jot_files,
// so references are counted, never stored). CollectGarbage deletes what is not live, on both stores,
// under two guards. First, the read model must be current: when a first look finds candidates, the sweep
// appends a jot.SweepStarted marker and waits for the jots projection to apply it, so every deploy recorded before the sweep counts; a
// projection that is stuck or rebuilding makes the sweep give up, deleting nothing. Second, a grace
// period (BlobGrace, 15 minutes): a deploy stores its bodies before its event is appended, and a body
// stored again is touched (FSBlobs: its mtime; PostgresBlobs: touched_at), so a blob is a candidate
// only when nothing has stored it for the grace period. The touch is checked again at the moment of
// deletion (FSBlobs renames the candidate aside and reads its mtime again, Put touches with Chtimes on
// the path; PostgreSQL deletes WHERE touched_at is still old), so a deploy racing a sweep either keeps
// the blob or writes it anew. Marking instead of counting references in a table keeps the write path
// as it was: no reference count can drift from the log, and a rebuild needs nothing. RunCollector
// sweeps at start, after every delete, redeploy and update (coalesced), and once per grace period, so
// a body becomes free at most about two grace periods after its last reference went.
//
// Password guesses. Each guess costs a bcrypt comparison (~50-100 ms of one CPU), so handlers/jotshttp
// counts guesses before anything else is done for them, per client address over all jots and per jot
// over all addresses (429 with Retry-After), and CheckPassword runs in a semaphore of
// DefaultBcryptSlots (GOMAXPROCS/2, at least one) slots: a check that waits BcryptWait (250 ms) for one
// is refused as busy (503 with Retry-After) without computing anything, so even a flood from many
// addresses takes at most half the CPUs. The per-jot limit lets an attacker lock others out of a jot's
// form for a minute at a time; visitors who already hold the jot's cookie are not affected, and the
// alternative (unlimited guesses from a botnet) is worse. Setting a password (deploy_jot, update_jot)
// uses the same slots but waits for one as long as the call's context allows.
package jots
