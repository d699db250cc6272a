DROP INDEX outbox_jobs_queued_kind;
DROP INDEX outbox_jobs_finished;
