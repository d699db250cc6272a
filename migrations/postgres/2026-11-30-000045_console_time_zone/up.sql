-- The time zone the console shows its times in (an IANA name such as `Europe/Berlin`), as the
-- owner chose it on the Shop identity page; empty until then (`STOREFRONT_TIME_ZONE` applies).
ALTER TABLE shop_identity ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
