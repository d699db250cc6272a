-- The outbox claim looks for each kind's oldest due job in turn (what a customer waits on
-- first, reminders last). With a backlog of a million due reminders, one query over every
-- due job sorted by kind read and sorted them all inside the claim's write transaction; this
-- index answers each kind's oldest due job by reading one entry.
CREATE INDEX outbox_jobs_queued_kind ON outbox_jobs (kind, run_at_ms, id) WHERE state = 'queued';

-- The dashboard's drain rate: jobs finished in the last minutes, by their last change. Partial,
-- so that no query on one state (`state = ?`) is ever planned through it.
CREATE INDEX outbox_jobs_finished ON outbox_jobs (updated_at_ms) WHERE state IN ('done', 'dead');

-- The credit the wallet must keep for paid purchases not placed yet, read in every checkout's
-- and every balance read's write transaction: only those purchases, not every purchase
-- without an upstream order (every unpaid checkout of a shop's history).
CREATE INDEX purchases_paid_unplaced ON purchases (cost_cents)
    WHERE status = 'paid' AND upstream_order_id IS NULL;
