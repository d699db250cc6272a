DROP TABLE alert_emails;
ALTER TABLE admin_users DROP COLUMN last_login_ms;
ALTER TABLE admin_users DROP COLUMN disabled_at_ms;
