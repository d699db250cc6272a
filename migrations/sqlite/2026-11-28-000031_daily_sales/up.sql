-- Money per UTC day of payment (unix ms at the day's start): purchases paid that day, what
-- they charged, what was refunded of them and the supplier cost they kept. Written in the
-- transactions that change money (src/db/daily_sales.rs); filled from the purchases at start
-- when empty.
CREATE TABLE daily_sales (
    day_ms BIGINT PRIMARY KEY NOT NULL,
    orders BIGINT NOT NULL DEFAULT 0,
    paid_cents BIGINT NOT NULL DEFAULT 0,
    refunded_cents BIGINT NOT NULL DEFAULT 0,
    supplier_cost_cents BIGINT NOT NULL DEFAULT 0
);
-- A day's purchases, the books' period and the dashboard's destinations by time of payment;
-- checkouts started in a window by time of creation.
CREATE INDEX purchases_paid_at ON purchases (paid_at_ms);
CREATE INDEX purchases_created_at ON purchases (created_at_ms);
