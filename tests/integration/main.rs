//! Integration tests: the real app over HTTP and the real binary, on a fresh database each,
//! on SQLite and on PostgreSQL, against the built-in sandbox upstream. One test binary keeps
//! link time down.

mod fixtures;
mod helpers;
mod journeys;
mod postgres;

mod account;
mod admin;
mod admin_cli;
mod admin_login;
mod admin_orders;
mod admin_pricing;
mod admin_roles;
mod admin_totp;
mod admin_users;
mod admin_wallet;
mod audit_log;
mod bad_input;
mod books;
mod browser;
mod catalog;
mod checkout;
mod checkout_holds;
mod cli;
mod consumer;
mod crash;
mod csrf;
mod db;
mod failpoints;
mod fault_matrix;
mod frame;
mod journeys_browser;
mod keys;
mod languages;
mod lifecycle;
mod lifecycle_console;
mod listen;
mod lost_link;
mod mail;
mod model;
mod ops;
mod order_links;
mod outage;
mod outbox;
mod promo;
mod replicas;
mod sandbox;
mod schema;
mod settings_doc;
mod shared_gate;
mod shop;
mod stripe;
mod upstream;
mod wallet_pause;
mod webdriver;
