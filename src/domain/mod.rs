//! Pure types and rules of the shop: money, and later markup math, the purchase state machine
//! and plan display. Nothing here does I/O.

pub mod alert;
pub mod brand;
mod client;
pub mod clock;
pub mod countries;
pub mod country_names;
pub mod currency;
pub mod database_url;
mod email;
pub mod esim;
pub mod html;
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
