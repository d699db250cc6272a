-- Retention walks the attempts of finished jobs by when they finished.
CREATE INDEX outbox_attempts_finished ON outbox_attempts (finished_at_ms, id);
