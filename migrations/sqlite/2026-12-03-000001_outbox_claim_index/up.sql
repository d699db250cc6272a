-- The outbox claim looks for queued jobs that are due and for running jobs whose lease has
-- expired. The second half had no index of its own, so the planner read every job ever run
-- (millions on a shop that has sold for years) inside the claim's write transaction. Only a
-- handful of jobs are running at a time, so this index is tiny.
CREATE INDEX outbox_jobs_lease_expiry ON outbox_jobs (lease_expires_at_ms) WHERE state = 'running';
