DROP INDEX purchases_email_lower;
