ALTER TABLE order_link_tokens DROP COLUMN opens_checkout;
DROP INDEX purchases_payment_reference;
DROP INDEX purchases_checkout_unit;
DROP TABLE travellers;
ALTER TABLE purchases DROP COLUMN unit_index;
ALTER TABLE purchases DROP COLUMN checkout_id;
DROP TABLE checkouts;
