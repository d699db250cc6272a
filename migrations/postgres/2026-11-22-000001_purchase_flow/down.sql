DROP TABLE outbox_jobs;
DROP TABLE purchase_events;
DROP TABLE purchases;
