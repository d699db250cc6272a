ALTER TABLE checkouts DROP COLUMN client_country;
ALTER TABLE daily_sales DROP COLUMN tax_cents;
DROP TABLE unit_taxes;
