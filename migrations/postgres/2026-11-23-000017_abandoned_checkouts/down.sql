DROP INDEX purchases_status_expires;
