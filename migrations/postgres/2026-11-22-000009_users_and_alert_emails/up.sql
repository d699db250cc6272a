-- Console user management and durable alert emails. Times are unix milliseconds (BIGINT).

-- An account is disabled rather than deleted, so the audit log keeps pointing at it; a
-- disabled account cannot log in and has no sessions. Owners see when each one last logged in.
ALTER TABLE admin_users ADD COLUMN disabled_at_ms BIGINT;
ALTER TABLE admin_users ADD COLUMN last_login_ms BIGINT;

-- One email per alert and owner, kept until the mail server has taken it: a failed send is
-- retried with backoff. 'dropped' means the alert was resolved before the email could go out;
-- 'failed' means the mail server refused the message for good.
CREATE TABLE alert_emails (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    alert_id BIGINT NOT NULL REFERENCES alerts (id),
    recipient TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'dropped', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    -- While an attempt runs this is its lease: nobody else sends the row before it expires.
    next_attempt_ms BIGINT NOT NULL,
    last_error TEXT,
    sent_at_ms BIGINT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    UNIQUE (alert_id, recipient)
);

CREATE INDEX alert_emails_due ON alert_emails (state, next_attempt_ms);
