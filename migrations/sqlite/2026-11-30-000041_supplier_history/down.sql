DROP TABLE supplier_history_sync;
DROP TABLE supplier_transactions;
DROP TABLE supplier_orders;
