DROP INDEX purchases_email_created;
DROP TABLE customer_sessions;
DROP TABLE customer_sign_in_tokens;
