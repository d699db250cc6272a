CREATE INDEX purchases_email_search ON purchases (email_lower);
CREATE INDEX purchases_created_at ON purchases (created_at_ms);
DROP INDEX purchases_paid_at;
CREATE INDEX purchases_paid_at ON purchases (paid_at_ms);
DROP INDEX outbox_jobs_open_kind;
