ALTER TABLE topups DROP COLUMN confirmed_at_ms;
ALTER TABLE wallet DROP COLUMN pause_reason;
