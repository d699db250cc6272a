ALTER TABLE checkouts DROP COLUMN trip_reminded_for;
ALTER TABLE checkouts DROP COLUMN trip_date;
