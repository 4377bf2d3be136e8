-- Read models of platform keys and platform-login calls (projections/platform): one row per platform
-- key that is set (its field names, who set it and when, and its values sealed by the vault, never
-- in clear), and the calls each organisation made on platform logins per connector and UTC month
-- (connector_calls, what the caps are read against in the admin view).
CREATE TABLE platform_keys (
    name       TEXT   PRIMARY KEY,
    fields     TEXT   NOT NULL,
    sealed     TEXT   NOT NULL,
    set_by     TEXT   NOT NULL,
    set_at     TEXT   NOT NULL,
    stream_version BIGINT NOT NULL
);

CREATE TABLE connector_calls (
    org_id     TEXT    NOT NULL,
    server_id  TEXT    NOT NULL,
    slug       TEXT    NOT NULL,
    month      TEXT    NOT NULL,
    calls      BIGINT  NOT NULL,
    last_at    TEXT    NOT NULL,
    PRIMARY KEY (org_id, server_id, month)
);
