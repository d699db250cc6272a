//! The shop as its owner presents it: its identity (name, colour, logo, company details) in
//! [`identity`], and its legal texts (terms, privacy, refunds and withdrawal, imprint) in
//! [`legal`]. Pages, emails and receipts read them from here.

pub mod identity;
pub mod legal;

pub use identity::{Identity, IdentityError, IdentityForm, ShopIdentity};
pub use legal::{Document, LegalError, LegalText, ShopLegal, TermsConsent};
