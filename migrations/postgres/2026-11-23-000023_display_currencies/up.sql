-- Display-only exchange rates the owner sets: how many units of `currency` one US dollar buys,
-- in millionths (0.9245 EUR per USD is 924500). rate_date is the day the rate was quoted
-- (YYYY-MM-DD), shown beside each converted price. Charges and books stay in USD cents.
CREATE TABLE display_rates (
    currency TEXT PRIMARY KEY NOT NULL,
    micros_per_usd BIGINT NOT NULL CHECK (micros_per_usd > 0),
    rate_date TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
