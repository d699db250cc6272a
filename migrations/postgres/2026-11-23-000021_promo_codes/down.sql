ALTER TABLE purchases DROP COLUMN discount_cents;
ALTER TABLE purchases DROP COLUMN list_price_cents;
ALTER TABLE purchases DROP COLUMN promo_code;
DROP TABLE promo_redemptions;
DROP TABLE promo_codes;
