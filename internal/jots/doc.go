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
// Blobs no manifest references any more (after a redeploy or a delete) are left in place; collecting
// them is future work (the manifests in the log say exactly which sums are live).
package jots
