ALTER TABLE refunds DROP COLUMN keeps_cost;
ALTER TABLE refunds DROP COLUMN cause;
