// Package vault owns every secret Workbench keeps: it seals them for the log and read models, opens
// them for the code that needs them, destroys them for good (crypto-shredding), and rotates the master
// key they hang from. Nothing else in the repository encrypts.
//
// # Envelope encryption
//
// Two layers of AES-256-GCM (NIST SP 800-38D):
//
//   - The master key (ENCRYPTION_KEY, 32 bytes as base64 or hex) seals only data keys. Its id, the
//     first 8 bytes of SHA-256 over a fixed label and the key, is stored beside every data key it
//     seals, so the vault knows which master opens which row; the key itself is never stored or logged.
//   - Each subject (a user id, "system", ...) has a data key, 32 random bytes, numbered by version and
//     created on the subject's first Seal. It lives sealed in vault_data_keys (migration 0010, SQLite
//     and PostgreSQL, one SQL text for both) and is cached in memory, unsealed, for a short TTL.
//
// Every blob, a secret or a data key, is 16 bytes of random IV, 16 bytes of GCM tag, then the
// ciphertext. Associated data binds a secret to its subject, its data key version and a purpose the
// caller names ("connection:github:credential"), and a data key to its subject, version and master id:
// a blob moved to another subject, version, purpose or row fails with ErrTampered. Open trusts
// Sealed.Subject to pick the key, so a caller reading a Sealed from a row owned by someone checks that
// Sealed.Subject names that owner. No error message contains a secret or a key.
//
// # Shredding
//
// Shred(subject) appends vault.subject_shredded (schema 1, {"subject": ...}) to the stream
// vault-subject-<subject>, then, in one transaction, marks the subject shredded in vault_subjects and
// deletes its data keys. From then on every copy of every secret sealed for it, in the log, in read
// models and in their backups, opens only to ErrShredded, and nothing new can be sealed for it. The log
// is the record: ReconcileShreds, run by the server at start, replays the shred events and deletes any
// keys a crash left behind. Replicas drop their cached keys when the bus delivers the event (Forget);
// one that misses it stops opening the subject's secrets within Options.CacheTTL.
//
// A first Seal and a Shred of the same subject lock the subject's row in vault_subjects, so they never
// interleave into a data key that outlives its shred.
//
// # Rotating the master key
//
// An operator rotates ENCRYPTION_KEY like this:
//
//  1. Generate a new key (`openssl rand -base64 32`).
//  2. Restart every replica with the new key in ENCRYPTION_KEY and the old one in
//     ENCRYPTION_KEY_PREVIOUS (a comma-separated list; it may name several). New data keys are sealed
//     under the new key; those sealed under an old one still open.
//  3. Run `workbench keys rotate`. It re-seals every data key under the current master in batches,
//     reporting progress; it is idempotent and resumable, so run it again if it stops. Only data keys are
//     re-sealed: secrets in the log stay as they are, because the data keys themselves do not change.
//  4. When it reports that every data key is under the current master, remove ENCRYPTION_KEY_PREVIOUS
//     and restart. A data key still sealed under a master the vault was not given fails with a
//     *MasterKeyMissingError naming that master's id.
//
// # Checking the master key at start
//
// A wrong ENCRYPTION_KEY would otherwise be noticed only when a secret is first opened, by a user's
// tool call. The server therefore calls CheckMasterKeys at every start and refuses to start when it
// fails. The check needs something sealed to open, and a new database has nothing, so the first start
// writes a key-check record: a data key for the reserved subject KeyCheckSubject ("vault:key-check"),
// a row of vault_data_keys like any other, for which nothing is ever sealed. A row rather than an
// event, because it must follow the master key: `keys rotate` re-seals it with every other data key,
// so after a finished rotation the new key alone opens it, and an event in the log could never be
// re-sealed. A database from before the record existed is checked by its most recently created data
// key, and gets its record at the first start that passes. When neither ENCRYPTION_KEY nor any key of
// ENCRYPTION_KEY_PREVIOUS opens it, the error (*WrongMasterKeyError) names the id of the master key
// the data expects and the ids of the keys given, never a key.
//
// # The embedded default
//
// With no ENCRYPTION_KEY, `make run` calls LoadOrCreateKeyFile on <data dir>/encryption.key: it creates
// the key with mode 0600 in a 0700 directory, refuses an existing file that others may read, and the
// caller warns loudly that losing the file loses every secret. A missing or malformed ENCRYPTION_KEY in
// any other setting stops start-up with an error that names the variable and the expected form.
package vault
