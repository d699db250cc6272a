-- The core of the purchase flow: one row per consumer purchase, its timeline, and the outbox
-- of work that must reach the upstream exactly once. Times are unix milliseconds (BIGINT) so
-- both backends compare and order them the same way.

CREATE TABLE purchases (
    id TEXT PRIMARY KEY NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('awaiting_payment', 'paid', 'ordered', 'provisioning',
        'fulfilled', 'payment_failed', 'needs_attention', 'failed', 'refunded')),
    email TEXT NOT NULL,
    plan_id TEXT NOT NULL,
    price_cents BIGINT NOT NULL CHECK (price_cents >= 0),
    cost_cents BIGINT NOT NULL CHECK (cost_cents >= 0),
    reference TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    key_generation INTEGER NOT NULL DEFAULT 0,
    upstream_order_id TEXT UNIQUE,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE INDEX purchases_status_updated ON purchases (status, updated_at_ms);

CREATE TABLE purchase_events (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    purchase_id TEXT NOT NULL REFERENCES purchases (id),
    at_ms BIGINT NOT NULL,
    from_status TEXT,
    to_status TEXT NOT NULL,
    note TEXT NOT NULL
);

CREATE INDEX purchase_events_purchase ON purchase_events (purchase_id, id);

CREATE TABLE outbox_jobs (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    purchase_id TEXT NOT NULL REFERENCES purchases (id),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at_ms BIGINT NOT NULL,
    lease_owner TEXT,
    lease_expires_at_ms BIGINT,
    last_error TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE INDEX outbox_jobs_due ON outbox_jobs (state, run_at_ms);
CREATE UNIQUE INDEX outbox_jobs_one_open ON outbox_jobs (purchase_id, kind)
    WHERE state IN ('queued', 'running');
