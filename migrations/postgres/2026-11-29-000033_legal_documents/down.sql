ALTER TABLE purchases DROP COLUMN terms_accepted_at_ms;
ALTER TABLE purchases DROP COLUMN terms_version;
DROP TABLE legal_documents;
