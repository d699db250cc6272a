-- Promotion codes the owner creates in the console, and each purchase's use of one.
--
-- kind 'percent': value is basis points off the list price (1..10000); kind 'amount': value is
-- US cents off. The window is [starts_at_ms, ends_at_ms); a null end never ends. max_uses and
-- max_uses_per_email are null for no cap. Scope: null everywhere, or one of a country code, a
-- region slug or a plan id. used_count is the number of verified payments that used the code,
-- raised by one in the transaction that records each verified payment (never by a checkout).
CREATE TABLE promo_codes (
    code TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('percent', 'amount')),
    value BIGINT NOT NULL CHECK (value > 0),
    starts_at_ms BIGINT NOT NULL,
    ends_at_ms BIGINT,
    max_uses BIGINT CHECK (max_uses > 0),
    max_uses_per_email BIGINT CHECK (max_uses_per_email > 0),
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('all', 'country', 'region', 'plan')),
    scope_value TEXT NOT NULL DEFAULT '',
    used_count BIGINT NOT NULL DEFAULT 0,
    disabled_at_ms BIGINT,
    created_at_ms BIGINT NOT NULL,
    created_by TEXT NOT NULL
);

-- One row per purchase that was started with a code. state 'reserved': the checkout holds one
-- of the code's uses until reserved_until_ms while its purchase awaits payment; 'used': the
-- payment was verified and counted in promo_codes.used_count.
CREATE TABLE promo_redemptions (
    purchase_id TEXT PRIMARY KEY NOT NULL REFERENCES purchases (id),
    code TEXT NOT NULL REFERENCES promo_codes (code),
    email_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('reserved', 'used')),
    reserved_until_ms BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    used_at_ms BIGINT
);

CREATE INDEX promo_redemptions_code ON promo_redemptions (code, state, reserved_until_ms);
CREATE INDEX promo_redemptions_email ON promo_redemptions (code, email_key);

-- What the buyer was offered and what the code took off; price_cents stays what is charged.
ALTER TABLE purchases ADD COLUMN promo_code TEXT;
ALTER TABLE purchases ADD COLUMN list_price_cents BIGINT;
ALTER TABLE purchases ADD COLUMN discount_cents BIGINT;
