-- Tax on sales. The owner's mode (off, prices include tax, tax added on top) is the
-- `tax_mode` row of `shop_settings`; a checkout keeps the mode it was started under, so the
-- payment page, the amount checked at payment and the recorded sale agree even if the owner
-- changes the mode meanwhile. NULL: no tax.
ALTER TABLE checkouts ADD COLUMN tax_mode TEXT;

-- The owner's rate per customer country, for providers that do not compute tax themselves.
CREATE TABLE tax_rates (
    country TEXT PRIMARY KEY NOT NULL,
    rate_bps INTEGER NOT NULL CHECK (rate_bps >= 0 AND rate_bps <= 10000),
    updated_at_ms BIGINT NOT NULL
);

-- One row per paid checkout taxed: the customer's country and its evidence, the mode, the
-- amounts and where the tax came from. Written in the transaction that applies the payment,
-- never changed.
CREATE TABLE sale_taxes (
    checkout_id TEXT PRIMARY KEY NOT NULL,
    -- The country the tax was charged for, when one is known.
    country TEXT,
    -- Evidence: the billing country the payment provider reports, and the country of the
    -- client's address when the shop knows it.
    billing_country TEXT,
    client_country TEXT,
    mode TEXT NOT NULL CHECK (mode IN ('inclusive', 'exclusive')),
    -- `provider` (the payment provider computed it) or `table` (the shop's rate table).
    source TEXT NOT NULL CHECK (source IN ('provider', 'table')),
    net_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    gross_cents BIGINT NOT NULL,
    paid_at_ms BIGINT NOT NULL
);
CREATE INDEX sale_taxes_paid_at ON sale_taxes (paid_at_ms);

-- A sale's tax by jurisdiction and rate, as reported or computed. Unknown jurisdiction or
-- rate: NULL (a provider's answer without a breakdown).
CREATE TABLE sale_tax_lines (
    checkout_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    jurisdiction TEXT,
    rate_bps INTEGER,
    taxable_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    PRIMARY KEY (checkout_id, line_no)
);

-- The tax a credit note carries back: its share of each of the sale's tax lines, by the same
-- rounding rule, with the sale's country and the note's time for the period it counts in.
CREATE TABLE credit_note_tax_lines (
    credit_note_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    country TEXT,
    jurisdiction TEXT,
    rate_bps INTEGER,
    taxable_cents BIGINT NOT NULL,
    tax_cents BIGINT NOT NULL,
    issued_at_ms BIGINT NOT NULL,
    PRIMARY KEY (credit_note_id, line_no)
);
CREATE INDEX credit_note_tax_lines_issued_at ON credit_note_tax_lines (issued_at_ms);
