-- The wallet CSV reads the copied transactions oldest first a page at a time, after the last
-- row sent: by (created_at_ms, id), one range of this index per page however long the
-- history. It also serves every look-up by time the single-column index served.
CREATE INDEX supplier_transactions_created_id ON supplier_transactions (created_at_ms, id);
DROP INDEX supplier_transactions_created;
