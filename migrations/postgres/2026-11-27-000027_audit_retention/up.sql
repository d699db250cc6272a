-- A refused login is recorded once per client and window with how many were refused
-- (`repeats`), not once per typed address. Every other entry is one event (1).
ALTER TABLE admin_audit ADD COLUMN repeats BIGINT NOT NULL DEFAULT 1;
-- The daily retention prune deletes by age.
CREATE INDEX admin_audit_at ON admin_audit (at_ms);
