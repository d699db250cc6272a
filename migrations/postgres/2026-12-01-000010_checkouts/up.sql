-- Several eSIMs in one order. A checkout is what the buyer paid for at once: one payment,
-- one buyer's link, 1 to N units. Each unit stays a `purchases` row (one upstream order with
-- its own reference, idempotency key, status, jobs, refund and links); the new columns say
-- which checkout it belongs to and its place in it (1-based); `travellers` names, optionally,
-- who a unit is for (a name to show, an address for the unit's own email).
-- The checkout's id is its first unit's id, so the buyer's page stays `/orders/{id}`.
--
-- Every purchase stored before this is a checkout of one unit with its own id and token hash:
-- every link handed out so far keeps opening the same page.
CREATE TABLE checkouts (
    id TEXT PRIMARY KEY NOT NULL,
    -- SHA-256 of the token made at checkout for the buyer (its cookie); never the token.
    access_token_hash TEXT NOT NULL UNIQUE,
    unit_count INTEGER NOT NULL,
    created_at_ms BIGINT NOT NULL
);
INSERT INTO checkouts (id, access_token_hash, unit_count, created_at_ms)
    SELECT id, access_token_hash, 1, created_at_ms FROM purchases;

ALTER TABLE purchases ADD COLUMN checkout_id TEXT NOT NULL DEFAULT '';
ALTER TABLE purchases ADD COLUMN unit_index INTEGER NOT NULL DEFAULT 1;
UPDATE purchases SET checkout_id = id;
CREATE UNIQUE INDEX purchases_checkout_unit ON purchases (checkout_id, unit_index);
CREATE INDEX purchases_payment_reference ON purchases (payment_reference);

CREATE TABLE travellers (
    purchase_id TEXT PRIMARY KEY NOT NULL REFERENCES purchases (id),
    name TEXT,
    email TEXT
);

-- A link opens either one unit (a traveller's) or the whole checkout (the buyer's). The
-- buyer's links are rows of the checkout's first unit with `opens_checkout`; every link made
-- before this was a buyer's.
ALTER TABLE order_link_tokens ADD COLUMN opens_checkout BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE order_link_tokens SET opens_checkout = TRUE;
