-- Private order links become random tokens that can be revoked and that expire.
--
-- Every token a purchase's links may carry is now a row here (its SHA-256 only), including
-- the one made at checkout: a revoked row no longer opens the order page. The hash already
-- kept in purchases.access_token_hash (the link in the emails sent so far) is copied in, so
-- those links keep working until they expire or are revoked.
ALTER TABLE order_link_tokens ADD COLUMN revoked_at_ms BIGINT;

INSERT INTO order_link_tokens (purchase_id, token_hash, created_at_ms)
SELECT p.id, p.access_token_hash, p.created_at_ms
FROM purchases p
WHERE NOT EXISTS (
    SELECT 1 FROM order_link_tokens t
    WHERE t.purchase_id = p.id AND t.token_hash = p.access_token_hash
);
