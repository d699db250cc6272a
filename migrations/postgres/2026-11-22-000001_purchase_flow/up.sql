-- The purchase flow: one row per consumer purchase, its timeline, payment events (stored once
-- by provider event id), refunds, the encrypted installation, the outbox of work that must
-- reach the upstream exactly once, the last known wallet, and alerts for the admin. Times are
-- unix milliseconds (BIGINT) so both backends compare and order them the same way.

CREATE TABLE purchases (
    id TEXT PRIMARY KEY NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('awaiting_payment', 'paid', 'ordered', 'provisioning',
        'fulfilled', 'payment_failed', 'needs_attention', 'failed', 'refunded')),
    email TEXT NOT NULL,
    plan_id TEXT NOT NULL,
    -- What the consumer pays, and the upstream cost sent as expectedPriceCents.
    price_cents BIGINT NOT NULL CHECK (price_cents >= 0),
    cost_cents BIGINT NOT NULL CHECK (cost_cents >= 0),
    -- Fixed before the first attempt; a new key generation only after a definitive 409.
    reference TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    key_generation INTEGER NOT NULL DEFAULT 0,
    upstream_order_id TEXT UNIQUE,
    upstream_status TEXT,
    esim_id TEXT,
    -- SHA-256 of the private order token; the token itself is never stored.
    access_token_hash TEXT NOT NULL UNIQUE,
    payment_provider TEXT NOT NULL,
    payment_session_id TEXT UNIQUE,
    -- The provider's payment (Stripe payment intent), needed to refund.
    payment_reference TEXT,
    -- An unpaid purchase stops holding wallet credit after this.
    expires_at_ms BIGINT NOT NULL,
    paid_at_ms BIGINT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE INDEX purchases_status_updated ON purchases (status, updated_at_ms);
CREATE INDEX purchases_email ON purchases (email);

CREATE TABLE purchase_events (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    purchase_id TEXT NOT NULL REFERENCES purchases (id),
    at_ms BIGINT NOT NULL,
    from_status TEXT,
    to_status TEXT NOT NULL,
    note TEXT NOT NULL
);

CREATE INDEX purchase_events_purchase ON purchase_events (purchase_id, id);

-- A verified provider event is stored by its id before it changes anything: a duplicate
-- delivery finds its row and changes nothing.
CREATE TABLE payment_events (
    id TEXT PRIMARY KEY NOT NULL,
    provider TEXT NOT NULL,
    kind TEXT NOT NULL,
    purchase_id TEXT REFERENCES purchases (id),
    received_at_ms BIGINT NOT NULL
);

CREATE TABLE refunds (
    id TEXT PRIMARY KEY NOT NULL,
    purchase_id TEXT NOT NULL UNIQUE REFERENCES purchases (id),
    amount_cents BIGINT NOT NULL CHECK (amount_cents >= 0),
    idempotency_key TEXT NOT NULL UNIQUE,
    provider_refund_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    reason TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

-- Installation values encrypted with an AEAD under the key named by key_id.
CREATE TABLE installations (
    purchase_id TEXT PRIMARY KEY NOT NULL REFERENCES purchases (id),
    esim_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    nonce TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    iccid_last4 TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);

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
    outcome TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE INDEX outbox_jobs_due ON outbox_jobs (state, run_at_ms);
CREATE UNIQUE INDEX outbox_jobs_one_open ON outbox_jobs (purchase_id, kind)
    WHERE state IN ('queued', 'running');

CREATE TABLE outbox_attempts (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    job_id BIGINT NOT NULL REFERENCES outbox_jobs (id),
    attempt INTEGER NOT NULL,
    started_at_ms BIGINT NOT NULL,
    finished_at_ms BIGINT NOT NULL,
    outcome TEXT NOT NULL,
    detail TEXT NOT NULL
);

CREATE INDEX outbox_attempts_job ON outbox_attempts (job_id, id);

-- The last known upstream wallet, shared by replicas; one row.
CREATE TABLE wallet (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id = 1),
    available_cents BIGINT NOT NULL,
    reserved_cents BIGINT NOT NULL,
    low_balance BOOLEAN NOT NULL,
    -- Set after a definitive insufficient_balance; new sales wait for a top-up.
    sales_paused BOOLEAN NOT NULL,
    refreshed_at_ms BIGINT NOT NULL
);

CREATE TABLE alerts (
    id BIGSERIAL PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    purchase_id TEXT REFERENCES purchases (id),
    message TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    resolved_at_ms BIGINT
);

CREATE INDEX alerts_open ON alerts (resolved_at_ms, id);
