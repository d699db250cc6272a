//! Integration tests: the real app over HTTP and the real binary, on a fresh database each,
//! on SQLite and on PostgreSQL. One test binary keeps link time down.

mod helpers;

mod cli;
mod db;
mod ops;
mod schema;
