DROP TABLE supplier_account;
