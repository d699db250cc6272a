-- "Lost your link?" requests: one row per address (lowercased). The row is both the queued
-- email and the per-address limit, so the limit holds across replicas.
CREATE TABLE lost_link_requests (
    email TEXT PRIMARY KEY NOT NULL,
    requested_at_ms BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'no_orders', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT NOT NULL,
    last_error TEXT
);

CREATE INDEX lost_link_requests_due ON lost_link_requests (state, next_attempt_ms);
