ALTER TABLE daily_sales DROP COLUMN tax_cents;
DROP TABLE unit_taxes;
