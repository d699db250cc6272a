-- Reminders of unfinished checkouts. `remind_unfinished` is the buyer's consent, given by
-- ticking a box at checkout (unticked by default); without it no such reminder is sent.
ALTER TABLE checkouts ADD COLUMN remind_unfinished BOOLEAN NOT NULL DEFAULT FALSE;

-- One row per mailbox (the address in lower case without a `+tag`) that was sent such a
-- reminder or unsubscribed from them: at most one reminder a week, none after unsubscribing.
CREATE TABLE reminder_addresses (
    email_key TEXT PRIMARY KEY NOT NULL,
    last_reminded_at_ms BIGINT,
    -- The checkout the last reminder was for: its retried send keeps the week's place.
    last_checkout_id TEXT,
    unsubscribed_at_ms BIGINT
);

-- The unsubscribe link of each reminder sent: SHA-256 of its token (never the token) and the
-- mailbox it unsubscribes.
CREATE TABLE unsubscribe_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    email_key TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
