DROP INDEX admin_audit_client_key;
CREATE INDEX admin_audit_client ON admin_audit (action, client_addr, at_ms);
ALTER TABLE admin_audit DROP COLUMN client_key;
DROP TABLE checkout_holds;
