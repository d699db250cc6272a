-- The language a customer bought in (`en`, `es`, `de`): every email of the purchase is
-- written in it. A "Lost your link?" request keeps the language of the page it came from.
-- Rows from before languages existed are English. An unknown value reads as English.
ALTER TABLE purchases ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
ALTER TABLE lost_link_requests ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
