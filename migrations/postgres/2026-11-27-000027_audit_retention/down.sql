DROP INDEX admin_audit_at;
ALTER TABLE admin_audit DROP COLUMN repeats;
