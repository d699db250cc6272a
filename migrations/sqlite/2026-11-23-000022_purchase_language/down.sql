ALTER TABLE lost_link_requests DROP COLUMN language;
ALTER TABLE purchases DROP COLUMN language;
