-- The buyer's departure day ("When do you leave?"), optional, as `YYYY-MM-DD` in the shop's
-- time zone, set at checkout or later on the order page. The trip reminder is sent the day
-- before it; `trip_reminded_for` is the departure day a reminder went out for, so a reminder
-- is sent once per date and a changed date gets one of its own.
ALTER TABLE checkouts ADD COLUMN trip_date TEXT;
ALTER TABLE checkouts ADD COLUMN trip_reminded_for TEXT;
