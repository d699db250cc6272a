DELETE FROM admin_login_attempts WHERE kind = 'password_change';
ALTER TABLE admin_login_attempts DROP CONSTRAINT admin_login_attempts_kind_check;
ALTER TABLE admin_login_attempts ADD CONSTRAINT admin_login_attempts_kind_check
    CHECK (kind IN ('password', 'totp'));
