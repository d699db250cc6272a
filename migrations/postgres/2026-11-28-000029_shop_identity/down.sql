DROP TABLE shop_identity;
