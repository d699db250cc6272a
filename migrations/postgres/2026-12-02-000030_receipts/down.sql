DROP TABLE credit_notes;
DROP TABLE receipt_lines;
DROP TABLE receipts;
DROP TABLE document_counters;
