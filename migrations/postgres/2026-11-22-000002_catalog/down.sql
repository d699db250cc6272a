DROP TABLE markup_rules;
DROP TABLE catalog_syncs;
DROP TABLE catalog_plans;
DROP TABLE catalog_regions;
DROP TABLE catalog_countries;
