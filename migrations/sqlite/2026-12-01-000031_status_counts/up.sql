-- Purchases per status and outbox jobs per state, kept by triggers in the transaction of every
-- insert, status change and delete, so `/metrics` reads a handful of rows instead of counting
-- every purchase and job on each scrape.
CREATE TABLE purchase_status_counts (
    status TEXT PRIMARY KEY NOT NULL,
    n BIGINT NOT NULL
);
CREATE TABLE outbox_state_counts (
    state TEXT PRIMARY KEY NOT NULL,
    n BIGINT NOT NULL
);

CREATE TRIGGER purchase_status_counts_insert AFTER INSERT ON purchases BEGIN
    INSERT INTO purchase_status_counts (status, n) VALUES (NEW.status, 1)
        ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER purchase_status_counts_update AFTER UPDATE OF status ON purchases
    WHEN OLD.status <> NEW.status BEGIN
    UPDATE purchase_status_counts SET n = n - 1 WHERE status = OLD.status;
    INSERT INTO purchase_status_counts (status, n) VALUES (NEW.status, 1)
        ON CONFLICT (status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER purchase_status_counts_delete AFTER DELETE ON purchases BEGIN
    UPDATE purchase_status_counts SET n = n - 1 WHERE status = OLD.status;
END;

CREATE TRIGGER outbox_state_counts_insert AFTER INSERT ON outbox_jobs BEGIN
    INSERT INTO outbox_state_counts (state, n) VALUES (NEW.state, 1)
        ON CONFLICT (state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER outbox_state_counts_update AFTER UPDATE OF state ON outbox_jobs
    WHEN OLD.state <> NEW.state BEGIN
    UPDATE outbox_state_counts SET n = n - 1 WHERE state = OLD.state;
    INSERT INTO outbox_state_counts (state, n) VALUES (NEW.state, 1)
        ON CONFLICT (state) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER outbox_state_counts_delete AFTER DELETE ON outbox_jobs BEGIN
    UPDATE outbox_state_counts SET n = n - 1 WHERE state = OLD.state;
END;

-- The counts so far, once.
INSERT INTO purchase_status_counts (status, n)
    SELECT status, COUNT(*) FROM purchases GROUP BY status;
INSERT INTO outbox_state_counts (state, n)
    SELECT state, COUNT(*) FROM outbox_jobs GROUP BY state;
