-- The books of each UTC day as last reconciled (`crate::books::days`), so that a period's page
-- reads a row per day instead of reconciling every sale of the period again. `version` is
-- raised, in the same transaction, by every write that changes what the day's books read (a
-- purchase's money, a copied supplier order or transaction, a top-up); `computed_version` is
-- the version the stored result was made at. The result is used only while the two are
-- equal; otherwise the day is reconciled again and stored, if no write came in between.
-- `summary` holds the day's totals, line count and the lines that need the owner's eye;
-- `newest` the day's newest lines. Both are JSON, for the shop only.
CREATE TABLE book_days (
    day_ms BIGINT PRIMARY KEY NOT NULL,
    version BIGINT NOT NULL DEFAULT 0,
    computed_version BIGINT,
    summary TEXT,
    newest TEXT
);
