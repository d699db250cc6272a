-- The dashboard counts the open jobs of one kind (placements waiting or running). Matched on
-- kind alone, the planner of a shop whose millions of jobs are all done read every job: the
-- open ones are a handful, so they get an index of their own.
CREATE INDEX outbox_jobs_open_kind ON outbox_jobs (kind) WHERE state IN ('queued', 'running');

-- Payment times are only ever searched by range, which implies a payment. Unpaid purchases
-- (every abandoned checkout) had one shared entry that the planner took for a rare value and
-- read whole to find the unpaid ones; now they have none.
DROP INDEX purchases_paid_at;
CREATE INDEX purchases_paid_at ON purchases (paid_at_ms) WHERE paid_at_ms IS NOT NULL;

-- Both are the first column of a wider index (purchases_created, purchases_email_created)
-- that serves every query they served; each cost every purchase an entry.
DROP INDEX purchases_created_at;
DROP INDEX purchases_email_search;
