-- Wrong current passwords on "Your account" are reserved before they are checked, like login
-- attempts, under a kind of their own.
ALTER TABLE admin_login_attempts DROP CONSTRAINT admin_login_attempts_kind_check;
ALTER TABLE admin_login_attempts ADD CONSTRAINT admin_login_attempts_kind_check
    CHECK (kind IN ('password', 'totp', 'password_change'));
