-- Organisations' webhooks and their deliveries (projections/webhooksrm, app/webhooks). webhooks is a read
-- model of webhook.registered/removed. webhook_deliveries is the outbox the projection fills from the
-- events a webhook subscribes to (one row per webhook and event, by dedupe_key, so a rebuild enqueues
-- nothing twice) and the sender works off, across replicas (lease_until), keeping each attempt's outcome.
CREATE TABLE webhooks (
    webhook_id TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id);
CREATE TABLE webhook_deliveries (
    delivery_id     TEXT    PRIMARY KEY,
    webhook_id      TEXT    NOT NULL,
    dedupe_key      TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    status          TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    lease_until     TEXT,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL,
    delivered_at    TEXT,
    UNIQUE (webhook_id, dedupe_key)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
