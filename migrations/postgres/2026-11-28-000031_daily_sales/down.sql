DROP INDEX purchases_created_at;
DROP INDEX purchases_paid_at;
DROP TABLE daily_sales;
