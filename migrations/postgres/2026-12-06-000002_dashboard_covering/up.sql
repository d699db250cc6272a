-- The dashboard's two 30-day reads of `purchases` answered from the index alone: checkouts
-- started (and how many were paid) by creation time, sales per plan by payment time. With only
-- the time in the index, each of the ~26,000 purchases of 30 days at 1,000 sales a day was a
-- fetch from the table. Both keep their leading columns, so every other read of them is as
-- before (the order list's keyset on (created_at_ms, id) included).
DROP INDEX purchases_created;
CREATE INDEX purchases_created ON purchases (created_at_ms, id, unit_index, paid_at_ms);
DROP INDEX purchases_paid_at;
CREATE INDEX purchases_paid_at ON purchases (paid_at_ms, status, plan_id, price_cents)
    WHERE paid_at_ms IS NOT NULL;
