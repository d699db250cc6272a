-- The shop's identity as its owner sets it in the console: one row (id 1). Before it exists the
-- shop uses its defaults (STOREFRONT_SHOP_NAME, STOREFRONT_SUPPORT_EMAIL). The logo is stored
-- here, not on disk, so every replica serves it. `version` rises with every change: pages link
-- the theme and the logo by it, and replicas reload when it differs from theirs.
CREATE TABLE shop_identity (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id = 1),
    name TEXT NOT NULL,
    accent TEXT NOT NULL,
    support_email TEXT NOT NULL,
    support_phone TEXT NOT NULL,
    legal_name TEXT NOT NULL,
    address TEXT NOT NULL,
    registration TEXT NOT NULL,
    logo_kind TEXT,
    logo BYTEA,
    version BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
