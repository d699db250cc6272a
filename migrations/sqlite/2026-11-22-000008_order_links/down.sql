DROP INDEX installations_key;
DROP TABLE order_link_tokens;
