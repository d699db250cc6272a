//! The shop's pure types and rules: money, emails and ids, the purchase state machine, markup
//! pricing, tax arithmetic, honest plan wording, and the consumer languages (`i18n`: message
//! catalogs and how each language writes numbers, money and dates). Nothing here does I/O, and
//! nothing here knows the database, the web or the supplier: every other crate of the shop
//! depends on this one, and this one on none of them.
//!
//! With the `diesel` feature, [`column`] reads and binds its values as column values.

pub mod alert;
pub mod brand;
mod client;
pub mod clock;
#[cfg(feature = "diesel")]
pub mod column;
pub mod countries;
pub mod country_names;
pub mod currency;
pub mod database_url;
mod email;
pub mod esim;
pub mod html;
pub mod i18n;
pub mod job;
mod money;
pub mod plan;
pub mod pricing;
pub mod promo;
pub mod purchase;
pub mod rate_window;
pub mod receipt;
pub mod secret;
pub mod takings;
pub mod tax;
pub mod trip;
pub mod units;

pub use alert::AlertKind;
pub use client::ClientKey;
pub use email::{Email, EmailError};
pub use money::{Cents, MoneyError};
pub use purchase::PurchaseId;
