-- "My eSIMs": a customer signs in with a link emailed to the address they bought with.
--
-- A sign-in link's token, by its SHA-256 only: the lowercased address it signs in, when it
-- stops working and, once exchanged for a session, when (a link works once).
CREATE TABLE customer_sign_in_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    email_lower TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    used_at_ms BIGINT
);
CREATE INDEX customer_sign_in_tokens_expiry ON customer_sign_in_tokens (expires_at_ms);

-- A signed-in browser, by the SHA-256 of its cookie: kept in the database so any replica
-- serves it, ended by its age, its idle time or a sign-out.
CREATE TABLE customer_sessions (
    id_hash TEXT PRIMARY KEY NOT NULL,
    email_lower TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL
);
-- "Sign out everywhere" ends every session of one address.
CREATE INDEX customer_sessions_email ON customer_sessions (email_lower);
CREATE INDEX customer_sessions_last_seen ON customer_sessions (last_seen_ms);

-- The list of one address's purchases, newest first, by pages (keyset on creation time, then id).
CREATE INDEX purchases_email_created ON purchases (email_lower, created_at_ms, id);
