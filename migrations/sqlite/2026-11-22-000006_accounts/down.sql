DROP TABLE admin_audit;
DROP TABLE admin_sessions;
DROP TABLE admin_users;
