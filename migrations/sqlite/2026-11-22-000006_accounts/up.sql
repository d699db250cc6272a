-- The admin console: staff accounts, their database-backed sessions (so any replica serves
-- them) and the append-only audit log. Times are unix milliseconds (BIGINT).

CREATE TABLE admin_users (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'support')),
    -- An argon2id PHC string; parameters travel with it, so stronger ones can be rolled out.
    password_hash TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- A session is found by the SHA-256 of its cookie value; the value itself is never stored.
CREATE TABLE admin_sessions (
    id_hash TEXT PRIMARY KEY NOT NULL,
    user_id BIGINT NOT NULL REFERENCES admin_users (id),
    created_at_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    client_addr TEXT NOT NULL
);

CREATE INDEX admin_sessions_user ON admin_sessions (user_id);

-- Who did what, when and from where. The console only ever inserts here. `actor` is the
-- account's email, or the address typed into a failed login (user_id then NULL).
CREATE TABLE admin_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    at_ms BIGINT NOT NULL,
    user_id BIGINT REFERENCES admin_users (id),
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    client_addr TEXT NOT NULL,
    details TEXT NOT NULL
);

-- Login throttling counts recent failures per account and per client address.
CREATE INDEX admin_audit_actor ON admin_audit (action, actor, at_ms);
CREATE INDEX admin_audit_client ON admin_audit (action, client_addr, at_ms);
