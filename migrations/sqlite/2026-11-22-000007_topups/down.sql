DROP TABLE shop_settings;
DROP TABLE topups;
