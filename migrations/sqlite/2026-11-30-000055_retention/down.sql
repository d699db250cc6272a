DROP INDEX outbox_attempts_finished;
