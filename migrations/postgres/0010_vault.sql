-- The vault's key store (owned by internal/vault).
-- vault_data_keys: one row per version of a subject's data key, sealed (AES-256-GCM: IV | tag |
-- ciphertext) under the master key (ENCRYPTION_KEY) whose id master_id records.
CREATE TABLE vault_data_keys (
    subject    TEXT        NOT NULL,
    version    INT         NOT NULL CHECK (version >= 1),
    master_id  TEXT        NOT NULL,
    sealed_key BYTEA       NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (subject, version)
);
-- vault_subjects: every subject ever given a data key or shredded. shredded_at is set once, for good:
-- a shredded subject's keys are gone and no new one is ever created for it. Its row is also the lock
-- that keeps a first seal and a shred of the same subject from interleaving.
CREATE TABLE vault_subjects (
    subject     TEXT PRIMARY KEY,
    shredded_at TIMESTAMPTZ
);
-- vault_shred_checkpoint: how far the vault has read the log for shred events (ReconcileShreds).
CREATE TABLE vault_shred_checkpoint (
    id          INT    PRIMARY KEY CHECK (id = 1),
    commit_pos  BIGINT NOT NULL,
    prepare_pos BIGINT NOT NULL
);
