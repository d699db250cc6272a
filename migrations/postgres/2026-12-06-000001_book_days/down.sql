DROP TABLE book_days;
