-- Private order links made under a secret key other than the one a purchase was created under.
--
-- A link's token is an HMAC of the purchase id under the shop's secret key, and
-- purchases.access_token_hash holds the hash of the token made at checkout. After a key
-- rotation an email about an old purchase carries a token made under the new key; its hash is
-- registered here before the email is sent, so the new link works while the old one (already
-- in the buyer's inbox) keeps working through purchases.access_token_hash.
CREATE TABLE order_link_tokens (
    purchase_id TEXT NOT NULL REFERENCES purchases (id),
    -- SHA-256 of the token; the token itself is never stored.
    token_hash TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    PRIMARY KEY (purchase_id, token_hash)
);

-- `storefront keys rotate` pages through the rows of one key at a time.
CREATE INDEX installations_key ON installations (key_id, purchase_id);
