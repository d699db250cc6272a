//! The shop's side of its supplier: the partner account behind the upstream API key
//! (`account`), read at start and with every catalog period, stored for every replica, and the
//! rule that refuses to sell when that account and the payment settings do not belong together.

pub mod account;

pub use account::{AccountFacts, Overview, SalesHeld, SupplierAccount, UnsafePair};
