-- A local copy of the supplier's order and wallet-transaction listings, refreshed in the
-- background (`books::history`), so reconciling a period reads only that period's rows by
-- index instead of walking the supplier's whole history. `created_at` is the supplier's own
-- text; `created_at_ms` its reading, NULL when it cannot be read (such rows belong to every
-- period, as in the reconciliation).
CREATE TABLE supplier_orders (
    id TEXT PRIMARY KEY NOT NULL,
    reference TEXT NOT NULL,
    status TEXT NOT NULL,
    price_cents BIGINT NOT NULL,
    currency TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_at_ms BIGINT,
    esim_id TEXT
);
CREATE INDEX supplier_orders_created ON supplier_orders (created_at_ms);
CREATE INDEX supplier_orders_reference ON supplier_orders (reference);

CREATE TABLE supplier_transactions (
    id BIGINT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    available_delta_cents BIGINT NOT NULL,
    reserved_delta_cents BIGINT NOT NULL,
    reference TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_at_ms BIGINT
);
CREATE INDEX supplier_transactions_created ON supplier_transactions (created_at_ms);
CREATE INDEX supplier_transactions_reference ON supplier_transactions (reference);

-- Per listing (`orders`, `transactions`): when the copy was last refreshed, and when last
-- read whole (a full pass, which also catches changes an early stop could miss).
CREATE TABLE supplier_history_sync (
    list TEXT PRIMARY KEY NOT NULL,
    refreshed_at_ms BIGINT NOT NULL,
    full_pass_at_ms BIGINT NOT NULL
);
