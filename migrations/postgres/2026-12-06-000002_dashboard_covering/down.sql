DROP INDEX purchases_paid_at;
CREATE INDEX purchases_paid_at ON purchases (paid_at_ms) WHERE paid_at_ms IS NOT NULL;
DROP INDEX purchases_created;
CREATE INDEX purchases_created ON purchases (created_at_ms, id);
