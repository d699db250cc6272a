-- Purchases per status and outbox jobs per state, kept by triggers in the transaction of every
-- insert, status change and delete, so `/metrics` reads a handful of rows instead of counting
-- every purchase and job on each scrape. The known values get their rows first, so a change
-- locks both rows it moves in one order (by name) and two opposite changes cannot deadlock.
CREATE TABLE purchase_status_counts (
    status TEXT PRIMARY KEY NOT NULL,
    n BIGINT NOT NULL
);
CREATE TABLE outbox_state_counts (
    state TEXT PRIMARY KEY NOT NULL,
    n BIGINT NOT NULL
);

CREATE FUNCTION purchase_status_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO purchase_status_counts (status, n) VALUES (NEW.status, 1)
            ON CONFLICT (status) DO UPDATE SET n = purchase_status_counts.n + 1;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE purchase_status_counts SET n = n - 1 WHERE status = OLD.status;
    ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
        INSERT INTO purchase_status_counts (status, n) VALUES (NEW.status, 0)
            ON CONFLICT (status) DO NOTHING;
        PERFORM 1 FROM purchase_status_counts WHERE status IN (OLD.status, NEW.status)
            ORDER BY status FOR UPDATE;
        UPDATE purchase_status_counts
            SET n = n + CASE WHEN status = NEW.status THEN 1 ELSE -1 END
            WHERE status IN (OLD.status, NEW.status);
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION outbox_state_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO outbox_state_counts (state, n) VALUES (NEW.state, 1)
            ON CONFLICT (state) DO UPDATE SET n = outbox_state_counts.n + 1;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE outbox_state_counts SET n = n - 1 WHERE state = OLD.state;
    ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
        INSERT INTO outbox_state_counts (state, n) VALUES (NEW.state, 0)
            ON CONFLICT (state) DO NOTHING;
        PERFORM 1 FROM outbox_state_counts WHERE state IN (OLD.state, NEW.state)
            ORDER BY state FOR UPDATE;
        UPDATE outbox_state_counts
            SET n = n + CASE WHEN state = NEW.state THEN 1 ELSE -1 END
            WHERE state IN (OLD.state, NEW.state);
    END IF;
    RETURN NULL;
END $$;

-- The triggers first: creating them locks out writers until this migration commits, so the
-- counts below miss nothing.
CREATE TRIGGER purchase_status_counts_keep AFTER INSERT OR DELETE OR UPDATE OF status
    ON purchases FOR EACH ROW EXECUTE FUNCTION purchase_status_counts_keep();
CREATE TRIGGER outbox_state_counts_keep AFTER INSERT OR DELETE OR UPDATE OF state
    ON outbox_jobs FOR EACH ROW EXECUTE FUNCTION outbox_state_counts_keep();

INSERT INTO purchase_status_counts (status, n)
    SELECT status, COUNT(*) FROM purchases GROUP BY status;
INSERT INTO purchase_status_counts (status, n) VALUES
    ('awaiting_payment', 0), ('paid', 0), ('ordered', 0), ('provisioning', 0), ('fulfilled', 0),
    ('payment_failed', 0), ('needs_attention', 0), ('failed', 0), ('refunded', 0)
    ON CONFLICT (status) DO NOTHING;
INSERT INTO outbox_state_counts (state, n)
    SELECT state, COUNT(*) FROM outbox_jobs GROUP BY state;
INSERT INTO outbox_state_counts (state, n) VALUES
    ('queued', 0), ('running', 0), ('done', 0), ('dead', 0)
    ON CONFLICT (state) DO NOTHING;
