CREATE TABLE admin_login_attempts_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('password', 'totp')),
    actor TEXT NOT NULL,
    client_key TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'failed', 'success'))
);
INSERT INTO admin_login_attempts_new (id, kind, actor, client_key, at_ms, state)
    SELECT id, kind, actor, client_key, at_ms, state FROM admin_login_attempts WHERE kind <> 'password_change';
DROP TABLE admin_login_attempts;
ALTER TABLE admin_login_attempts_new RENAME TO admin_login_attempts;
CREATE INDEX admin_login_attempts_actor ON admin_login_attempts (kind, actor, at_ms);
CREATE INDEX admin_login_attempts_client ON admin_login_attempts (kind, client_key, at_ms);
