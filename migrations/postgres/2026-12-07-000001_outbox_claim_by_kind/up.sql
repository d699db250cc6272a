-- The outbox claim looks for each kind's oldest due job in turn (what a customer waits on
-- first, reminders last). With a backlog of a million due reminders, one query over every
-- due job sorted by kind read and sorted them all inside the claim's write transaction; this
-- index answers each kind's oldest due job by reading one entry.
CREATE INDEX outbox_jobs_queued_kind ON outbox_jobs (kind, run_at_ms, id) WHERE state = 'queued';

-- The dashboard's drain rate: jobs finished in the last minutes, by their last change.
CREATE INDEX outbox_jobs_finished ON outbox_jobs (state, updated_at_ms);
