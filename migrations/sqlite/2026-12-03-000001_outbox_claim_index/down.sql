DROP INDEX outbox_jobs_lease_expiry;
