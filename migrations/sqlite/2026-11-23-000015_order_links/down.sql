-- The rows stay: the earlier code accepts every row of this table (and the checkout hash in
-- purchases.access_token_hash). Revocations are lost with the column.
ALTER TABLE order_link_tokens DROP COLUMN revoked_at_ms;
