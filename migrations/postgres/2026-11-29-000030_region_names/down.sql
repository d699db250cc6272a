DROP TABLE region_names;
