-- The local catalog cache and the partner's markup rules. Plans are never deleted: a plan that
-- disappears upstream becomes unavailable, and purchases keep referring to it. Lists (coverage,
-- networks) are JSON text; a NULL networks column means "not reported", '[]' "none listed".

CREATE TABLE catalog_countries (
    code TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    available BOOLEAN NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE catalog_regions (
    slug TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    coverage TEXT NOT NULL,
    available BOOLEAN NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE TABLE catalog_plans (
    id TEXT PRIMARY KEY NOT NULL,
    country_code TEXT NOT NULL,
    country_name TEXT NOT NULL,
    scope TEXT,
    region TEXT,
    coverage TEXT NOT NULL,
    data_mb BIGINT NOT NULL,
    validity_days BIGINT NOT NULL,
    cost_cents BIGINT NOT NULL CHECK (cost_cents >= 0),
    currency TEXT NOT NULL,
    network_type TEXT,
    networks TEXT,
    activation_type TEXT NOT NULL,
    is_daily BOOLEAN NOT NULL,
    fup_policy TEXT NOT NULL,
    period_num BIGINT,
    available BOOLEAN NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);

CREATE INDEX catalog_plans_country ON catalog_plans (country_code);

CREATE TABLE catalog_syncs (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    finished_at_ms BIGINT NOT NULL,
    ok BOOLEAN NOT NULL,
    plan_count BIGINT NOT NULL,
    country_count BIGINT NOT NULL,
    region_count BIGINT NOT NULL,
    error TEXT
);

CREATE TABLE markup_rules (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('default', 'region', 'country', 'plan')),
    scope_value TEXT NOT NULL,
    markup_bps BIGINT NOT NULL CHECK (markup_bps >= 0 AND markup_bps <= 100000),
    fixed_cents BIGINT NOT NULL CHECK (fixed_cents >= 0),
    price_ending BIGINT CHECK (price_ending >= 0 AND price_ending <= 99),
    min_margin_cents BIGINT NOT NULL CHECK (min_margin_cents >= 0),
    updated_at_ms BIGINT NOT NULL,
    UNIQUE (scope_kind, scope_value)
);
