-- Named leases: work that one replica at a time should do (the catalog sync) takes a lease
-- with an expiry, so a replica that dies mid-way does not block the others for long.
CREATE TABLE leases (
    name TEXT PRIMARY KEY NOT NULL,
    holder TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
