ALTER TABLE shop_identity DROP COLUMN time_zone;
