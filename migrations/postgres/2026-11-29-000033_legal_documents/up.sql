-- The shop's legal and policy texts (terms, privacy, refunds and withdrawal, imprint), one row
-- per document and language, as the owner edited or reviewed them in the console. A document
-- without a row is shown as its built-in draft. `version` rises with every change of a row; a
-- purchase records the terms version its buyer agreed to (`purchases.terms_version`).
CREATE TABLE legal_documents (
    document TEXT NOT NULL,
    language TEXT NOT NULL,
    body TEXT NOT NULL,
    reviewed BOOLEAN NOT NULL,
    version BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (document, language)
);

-- The buyer's consent to the terms at checkout: which version (in the purchase's language) and
-- when. Empty on purchases made before consent was asked for.
ALTER TABLE purchases ADD COLUMN terms_version BIGINT;
ALTER TABLE purchases ADD COLUMN terms_accepted_at_ms BIGINT;
