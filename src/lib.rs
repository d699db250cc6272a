//! `storefront`: a partner-side eSIM shop on top of the Reseller eSIM Partner API.
//!
//! One folder per capability; see `docs/architecture.md` for the map and the purchase flow.

pub mod app;
pub mod books;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod db;
pub mod failpoints;
pub mod mail;
pub mod orders;
pub mod payments;
pub mod shop;
pub mod staff;

pub mod sandbox;
pub mod sealing;
pub mod telemetry;
pub mod upstream;
pub mod wallet;
pub mod web;

/// The shop's pure types and rules (the `storefront-domain` crate), under the names the rest of
/// the shop has always used for them.
pub use storefront_domain as domain;
pub use storefront_domain::i18n;
