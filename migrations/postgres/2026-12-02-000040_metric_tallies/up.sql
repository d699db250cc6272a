-- Counts of rows in a state that only grows (purchases that have ended, outbox jobs done),
-- taken every few minutes by one replica, so `/metrics` never counts those rows per scrape.
-- The states that come and go are counted live from their indexes.
CREATE TABLE metric_tallies (
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    n BIGINT NOT NULL,
    as_of_ms BIGINT NOT NULL,
    PRIMARY KEY (kind, label)
);
