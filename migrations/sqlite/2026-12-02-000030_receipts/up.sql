-- Receipts and credit notes: documents issued once and never changed. Each stores what it
-- says (the seller, the customer, the lines, the total) as it was when it was issued, not a
-- view over rows that change later. Numbers come from one counter row per series, raised in
-- the transaction that issues the document: a transaction that rolls back uses no number,
-- so each series runs 1, 2, 3, … without gaps or repeats across every replica.
CREATE TABLE document_counters (
    series TEXT PRIMARY KEY NOT NULL,
    last_number BIGINT NOT NULL
);
INSERT INTO document_counters (series, last_number) VALUES ('receipt', 0);
INSERT INTO document_counters (series, last_number) VALUES ('credit_note', 0);

-- One receipt per paid checkout; its id is the checkout's id.
CREATE TABLE receipts (
    id TEXT PRIMARY KEY NOT NULL,
    number BIGINT NOT NULL UNIQUE,
    issued_at_ms BIGINT NOT NULL,
    seller_name TEXT NOT NULL,
    seller_legal_name TEXT NOT NULL,
    seller_address TEXT NOT NULL,
    seller_registration TEXT NOT NULL,
    seller_contact TEXT NOT NULL,
    customer_email TEXT NOT NULL,
    -- As the payment provider reports them, when it does.
    billing_name TEXT,
    billing_country TEXT,
    currency TEXT NOT NULL,
    total_cents BIGINT NOT NULL,
    -- `demo` or `stripe`.
    payment_method TEXT NOT NULL,
    -- The language its line descriptions were written in.
    language TEXT NOT NULL
);

-- A receipt's lines in order: what was sold (`item`) and, once the shop charges it, the tax
-- (`tax`, with its rate and jurisdiction).
CREATE TABLE receipt_lines (
    receipt_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('item', 'tax')),
    description TEXT NOT NULL,
    quantity INTEGER NOT NULL,
    unit_price_cents BIGINT NOT NULL,
    discount_cents BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    tax_rate_bps INTEGER,
    tax_jurisdiction TEXT,
    PRIMARY KEY (receipt_id, line_no)
);

-- One credit note per succeeded refund (its id is the refund row's), for the refunded amount.
CREATE TABLE credit_notes (
    id TEXT PRIMARY KEY NOT NULL,
    number BIGINT NOT NULL UNIQUE,
    receipt_id TEXT NOT NULL,
    issued_at_ms BIGINT NOT NULL,
    amount_cents BIGINT NOT NULL,
    currency TEXT NOT NULL,
    -- What was credited, in the receipt's language.
    description TEXT NOT NULL
);
CREATE INDEX credit_notes_receipt ON credit_notes (receipt_id);
