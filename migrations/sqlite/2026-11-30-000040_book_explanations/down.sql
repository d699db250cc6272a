DROP TABLE book_explanations;
