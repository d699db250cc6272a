-- Wallet credit held by unpaid checkouts, one row per purchase, with the client and the email
-- it was bought from so the caps on what one client may hold apply across replicas.
--
-- A hold counts against the wallet while expires_at_ms is in the future and its purchase still
-- awaits payment; ending it early (a newer hold of the same client took its place, or it never
-- fitted the caps) sets expires_at_ms to the time it ended. The payment page itself may stay
-- open longer (purchases.expires_at_ms): a late payment is still honoured.
CREATE TABLE checkout_holds (
    purchase_id TEXT PRIMARY KEY NOT NULL REFERENCES purchases (id),
    -- An IPv4 address or an IPv6 /64 (`2001:db8:1:2::/64`).
    client_key TEXT NOT NULL,
    -- The buyer's email, lower case, without a `+tag`.
    email_key TEXT NOT NULL,
    cost_cents BIGINT NOT NULL CHECK (cost_cents >= 0),
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);

CREATE INDEX checkout_holds_client ON checkout_holds (client_key, expires_at_ms);
CREATE INDEX checkout_holds_email ON checkout_holds (email_key, expires_at_ms);
CREATE INDEX checkout_holds_expiry ON checkout_holds (expires_at_ms);

-- Login throttles count failures per client the way every limit does (an IPv6 /64 is one
-- client); client_addr keeps the full address for people reading the log.
ALTER TABLE admin_audit ADD COLUMN client_key TEXT NOT NULL DEFAULT '';
UPDATE admin_audit SET client_key = client_addr;
DROP INDEX admin_audit_client;
CREATE INDEX admin_audit_client_key ON admin_audit (action, client_key, at_ms);
