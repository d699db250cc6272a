-- The supplier account as `GET /account` last reported it: one row shared by every replica.
-- Times are unix milliseconds (BIGINT).
CREATE TABLE supplier_account (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id = 1),
    -- Which key read it: a hash of the upstream base URL and API key. A row read with
    -- another key says nothing about the key in use.
    key_fingerprint TEXT NOT NULL,
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    environment TEXT NOT NULL,
    -- The key's scopes, space-separated.
    scopes TEXT NOT NULL,
    -- `keyExpiresAt` verbatim (its format is not specified), and parsed when it could be.
    key_expires_at TEXT NOT NULL,
    key_expires_at_ms BIGINT,
    webhook_enabled BOOLEAN NOT NULL,
    -- The last successful read.
    checked_at_ms BIGINT NOT NULL,
    -- The last attempt, and why it failed when it did (NULL: it succeeded).
    attempted_at_ms BIGINT NOT NULL,
    last_error TEXT
);
