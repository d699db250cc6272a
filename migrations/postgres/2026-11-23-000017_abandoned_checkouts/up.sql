-- Unpaid checkouts by status and expiry: the expiry sweep's query and the console's count and
-- list of abandoned checkouts (never paid, payment page closed).
CREATE INDEX purchases_status_expires ON purchases (status, expires_at_ms);
