DROP TABLE unsubscribe_tokens;
DROP TABLE reminder_addresses;
ALTER TABLE checkouts DROP COLUMN remind_unfinished;
