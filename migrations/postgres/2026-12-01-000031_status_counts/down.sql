DROP TRIGGER outbox_state_counts_keep ON outbox_jobs;
DROP TRIGGER purchase_status_counts_keep ON purchases;
DROP FUNCTION outbox_state_counts_keep();
DROP FUNCTION purchase_status_counts_keep();
DROP TABLE outbox_state_counts;
DROP TABLE purchase_status_counts;
