DROP TABLE metric_tallies;
