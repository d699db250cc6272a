-- The console's order search and its per-order page read by index at any number of orders.
--
-- Search columns, written by the app with each purchase (`db::purchases`) and filled here for
-- the rows already stored: the address in lower case (searched by its start), the part after
-- its `@` in lower case (searched whole) and the order key, the first eight letters or digits
-- of the purchase id in lower case: the order number (`SF-3FA2-9C1E`) the customer quotes,
-- without its dressing (`domain::purchase::order_key`). Ids hold only letters, digits, `-`
-- and `_`, so dropping those two is all the key needs in SQL.
ALTER TABLE purchases ADD COLUMN email_lower TEXT NOT NULL DEFAULT '';
ALTER TABLE purchases ADD COLUMN email_domain TEXT NOT NULL DEFAULT '';
ALTER TABLE purchases ADD COLUMN order_key TEXT NOT NULL DEFAULT '';
UPDATE purchases SET
    email_lower = lower(email),
    email_domain = lower(substr(email, instr(email, '@') + 1)),
    order_key = lower(substr(replace(replace(id, '-', ''), '_', ''), 1, 8));

-- The list, newest first, and its pages (keyset on creation time, then id), whole or for a
-- date range, or for one status.
CREATE INDEX purchases_created ON purchases (created_at_ms, id);
CREATE INDEX purchases_status_created ON purchases (status, created_at_ms, id);
CREATE INDEX purchases_email_search ON purchases (email_lower);
CREATE INDEX purchases_email_domain ON purchases (email_domain, created_at_ms, id);
CREATE INDEX purchases_order_key ON purchases (order_key);

-- One order's page: its jobs and its alerts.
CREATE INDEX outbox_jobs_purchase ON outbox_jobs (purchase_id, id);
CREATE INDEX alerts_purchase ON alerts (purchase_id, id);
