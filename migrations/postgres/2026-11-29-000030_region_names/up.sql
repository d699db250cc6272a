-- The owner's own name for a region in one shop language ("Europa & Balkan" for slug
-- "europe" in German). Without a row the shop uses CLDR's name of the area, or upstream's.
-- A change raises the pricing version, so every replica rebuilds its catalog snapshot.
CREATE TABLE region_names (
    slug TEXT NOT NULL,
    lang TEXT NOT NULL,
    name TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (slug, lang)
);
