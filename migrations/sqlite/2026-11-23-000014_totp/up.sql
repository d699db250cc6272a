-- A session's stage: 'full' may use the console; 'totp' has passed the password and waits for
-- the account's code; 'enrol' has passed the password of an account that must enrol in TOTP
-- before it may do anything else.
ALTER TABLE admin_sessions ADD COLUMN stage TEXT NOT NULL DEFAULT 'full'
    CHECK (stage IN ('full', 'totp', 'enrol'));

-- One TOTP secret per account, sealed (ChaCha20-Poly1305 under a key derived from the secret
-- key, the account id as associated data); key_id names that key. confirmed_at_ms is NULL while
-- enrolment waits for its first code. last_step is the newest time step accepted: a code of that
-- step or an older one is refused (no replay).
CREATE TABLE admin_totp (
    user_id BIGINT PRIMARY KEY NOT NULL REFERENCES admin_users (id),
    key_id TEXT NOT NULL,
    nonce TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    confirmed_at_ms BIGINT,
    last_step BIGINT
);

-- Recovery codes: only their SHA-256 (they are 80 random bits), each usable once.
CREATE TABLE admin_recovery_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES admin_users (id),
    code_hash TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    used_at_ms BIGINT
);
CREATE INDEX admin_recovery_codes_user ON admin_recovery_codes (user_id, code_hash);

-- Login attempts, reserved before the password (or code) is checked: 'pending' while it is
-- being verified, then 'failed' or 'success'. The throttle counts every attempt that is not a
-- success, so parallel guesses count before any of them is verified.
CREATE TABLE admin_login_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('password', 'totp')),
    actor TEXT NOT NULL,
    client_key TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'failed', 'success'))
);
CREATE INDEX admin_login_attempts_actor ON admin_login_attempts (kind, actor, at_ms);
CREATE INDEX admin_login_attempts_client ON admin_login_attempts (kind, client_key, at_ms);
