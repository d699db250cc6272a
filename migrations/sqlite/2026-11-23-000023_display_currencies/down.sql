DROP TABLE display_rates;
