//! The shop as its owner presents it: its identity (name, colour, logo, company details) in
//! [`identity`]. Pages, emails and receipts read it from here.

pub mod identity;

pub use identity::{Identity, IdentityError, IdentityForm, ShopIdentity};
