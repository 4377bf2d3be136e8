-- Tamper evidence for the event log (owned by internal/auditchain; see its doc.go).
-- audit_chain: one row per event, in the order readers see the log, written by the sealer that follows
-- it. seq counts events from 1 with no gap; hash is SHA-256 over the previous row's hash and the
-- event's canonical encoding; event_id names the event the row covers.
CREATE TABLE audit_chain (
    seq         INTEGER PRIMARY KEY CHECK (seq > 0),
    commit_pos  INTEGER NOT NULL,
    prepare_pos INTEGER NOT NULL,
    event_id    TEXT    NOT NULL,
    hash        BLOB    NOT NULL,
    UNIQUE (commit_pos, prepare_pos)
) STRICT;
-- audit_seals: a signed checkpoint of the chain head every N events or T seconds. signature is Ed25519
-- over the seal's canonical encoding, by the key whose id key_id names.
CREATE TABLE audit_seals (
    seq         INTEGER PRIMARY KEY CHECK (seq > 0),
    commit_pos  INTEGER NOT NULL,
    prepare_pos INTEGER NOT NULL,
    head        BLOB    NOT NULL,
    sealed_at   TEXT    NOT NULL,
    key_id      TEXT    NOT NULL,
    signature   BLOB    NOT NULL
) STRICT;
-- audit_seal_keys: the sealing key. The private key is sealed by the vault (a JSON domain.Sealed); the
-- public key is kept in clear so anyone can check a seal. id = 1 is the key in use.
CREATE TABLE audit_seal_keys (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    key_id      TEXT    NOT NULL,
    public_key  BLOB    NOT NULL,
    private_key TEXT    NOT NULL,
    created_at  TEXT    NOT NULL
) STRICT;
