-- Wallet top-ups asked for from the admin console, and the shop's own settings. Times are unix
-- milliseconds (BIGINT).

-- One row per top-up form. The form carries a nonce issued with the page; the row, and with it
-- the Idempotency-Key, is found by that nonce, so the same form sent twice (a double click, a
-- retry after a timeout) asks upstream with the same key and gets the same checkout session.
CREATE TABLE topups (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    nonce TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    amount_cents BIGINT NOT NULL CHECK (amount_cents BETWEEN 1000 AND 100000),
    created_by BIGINT NOT NULL REFERENCES admin_users (id),
    -- Set once upstream has answered with a checkout session.
    session_id TEXT,
    checkout_url TEXT,
    last_error TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- Numeric settings the owner changes in the console (e.g. the low-balance threshold, in cents).
CREATE TABLE shop_settings (
    name TEXT PRIMARY KEY NOT NULL,
    value BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
