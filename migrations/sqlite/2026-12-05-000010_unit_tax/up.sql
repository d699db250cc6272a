-- Each eSIM's share of its checkout's tax, written when the payment is applied
-- (`orders::tax::record`), for taxed sales only: `tax_cents` is the tax within what the buyer
-- paid for it; `tax_added_cents` the part of it charged on top of `purchases.price_cents`
-- (all of it when tax is added on top, nothing when prices include tax). What the eSIM
-- charged is `price_cents + tax_added_cents`, the amount its refund gives back. No row: no
-- tax. (A table of its own: `purchases` is at the 32 columns the query builder takes.)
CREATE TABLE unit_taxes (
    purchase_id TEXT PRIMARY KEY NOT NULL REFERENCES purchases (id),
    tax_cents BIGINT NOT NULL CHECK (tax_cents >= 0),
    tax_added_cents BIGINT NOT NULL CHECK (tax_added_cents >= 0 AND tax_added_cents <= tax_cents)
);

-- The tax kept on each day's sales (charged, less what refunds carried back): owed to the
-- tax office, so not part of the margin.
ALTER TABLE daily_sales ADD COLUMN tax_cents BIGINT NOT NULL DEFAULT 0;

-- The country of the client's address when the trusted proxy in front of the shop names it
-- (`STOREFRONT_CLIENT_COUNTRY_HEADER`), kept from the start of the checkout: evidence for its
-- tax, copied into `sale_taxes.client_country` when it is paid.
ALTER TABLE checkouts ADD COLUMN client_country TEXT;
