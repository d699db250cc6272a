DROP TABLE credit_note_tax_lines;
DROP TABLE sale_tax_lines;
DROP TABLE sale_taxes;
DROP TABLE tax_rates;
ALTER TABLE checkouts DROP COLUMN tax_mode;
