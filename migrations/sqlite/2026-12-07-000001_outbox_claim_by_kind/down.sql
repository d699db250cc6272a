DROP INDEX outbox_jobs_queued_kind;
DROP INDEX outbox_jobs_finished;
DROP INDEX purchases_paid_unplaced;
