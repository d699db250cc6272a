DROP TABLE admin_login_attempts;
DROP TABLE admin_recovery_codes;
DROP TABLE admin_totp;
ALTER TABLE admin_sessions DROP COLUMN stage;
