-- Tamper evidence for the event log (owned by internal/auditchain; see its doc.go).
-- audit_chain: one row per event, in the order readers see the log ((xid, position), read below the
-- oldest running transaction), written by the sealer that follows it. seq counts events from 1 with no
-- gap; hash is SHA-256 over the previous row's hash and the event's canonical encoding; event_id names
-- the event the row covers.
CREATE TABLE audit_chain (
    seq         BIGINT PRIMARY KEY CHECK (seq > 0),
    commit_pos  BIGINT NOT NULL,
    prepare_pos BIGINT NOT NULL,
    event_id    TEXT   NOT NULL,
    hash        BYTEA  NOT NULL,
    UNIQUE (commit_pos, prepare_pos)
);
-- audit_seals: a signed checkpoint of the chain head every N events or T seconds. signature is Ed25519
-- over the seal's canonical encoding, by the key whose id key_id names.
CREATE TABLE audit_seals (
    seq         BIGINT PRIMARY KEY CHECK (seq > 0),
    commit_pos  BIGINT NOT NULL,
    prepare_pos BIGINT NOT NULL,
    head        BYTEA  NOT NULL,
    sealed_at   TEXT   NOT NULL,
    key_id      TEXT   NOT NULL,
    signature   BYTEA  NOT NULL
);
-- audit_seal_keys: the sealing key. The private key is sealed by the vault (a JSON domain.Sealed); the
-- public key is kept in clear so anyone can check a seal. id = 1 is the key in use.
CREATE TABLE audit_seal_keys (
    id          INT    PRIMARY KEY CHECK (id = 1),
    key_id      TEXT   NOT NULL,
    public_key  BYTEA  NOT NULL,
    private_key TEXT   NOT NULL,
    created_at  TEXT   NOT NULL
);
