//! The shop's side of its supplier: the partner account behind the upstream API key
//! (`account`), read at start and with every catalog period, stored for every replica, and the
//! rule that refuses to sell when that account and the payment settings do not belong together;
//! and the supplier wallet:
//!
//! - `balance`: `GET /balance` into the shared wallet row, the wallet page's figures, and
//!   [`SalesState`], each process's short-lived copy of "are new sales paused?";
//! - `threshold`: the owner's low-balance threshold and "pause below it" choice, and the
//!   shop's own low-balance alert (once per crossing);
//! - `alert_mail`: the owners' alert emails, queued with the alert and retried until sent;
//! - `topup`: top-ups asked for from the console, the checkout link rule and the credit that
//!   confirms them;
//! - `runway`: how many days of sales the balance covers.
//!
//! The console's wallet page and the wallet watcher call one [`Wallet`] capability each; every
//! query stays in `crate::db` (`wallet`, `topups`, `alert_mail`).

pub mod alert_mail;
pub mod balance;
pub mod runway;
pub mod supplier_account;
pub mod threshold;
pub mod topup;

use url::Url;

use crate::db::{Db, DbError};
use crate::orders::notify::Notifier;
use crate::upstream::{Class, PartnerClient, UpstreamError};

pub use balance::{
    BalanceRefresher, SalesState, ShownBalance, TransactionLine, WalletOverview, refresh,
};
pub use supplier_account::{AccountFacts, Overview, SalesHeld, SupplierAccount, UnsafePair};
pub use threshold::ThresholdPolicy;
pub use topup::{TopupAnswer, TopupProgress, TopupRefusal};

/// Balance transactions shown per page (the wallet page and the top-up page read the same).
pub(crate) const TRANSACTIONS_PER_PAGE: u32 = 25;

/// What the wallet capabilities work with: the database, the upstream client (and the base
/// URL it was configured with, which decides the checkout links the console may show), and the
/// owners' mail transport (`None` without one: alert emails then wait).
#[derive(Clone, Copy)]
pub struct Wallet<'a> {
    pub db: &'a Db,
    pub upstream: &'a PartnerClient,
    pub upstream_base: &'a Url,
    pub notifier: Option<&'a Notifier>,
}

/// Why a wallet capability could not answer. Upstream trouble is not here: the wallet page
/// shows it beside what is known ([`WalletOverview`], [`TopupAnswer`]).
#[derive(Debug, thiserror::Error)]
pub enum WalletError {
    /// The threshold form's value is not dollars, or above [`threshold::MAX_THRESHOLD_CENTS`].
    #[error(
        "The threshold is dollars like 100 or 250.50, at most {}.",
        crate::domain::Cents::new(threshold::MAX_THRESHOLD_CENTS)
    )]
    ThresholdNotValid,
    #[error("no such top-up")]
    TopupNotFound,
    /// A stored top-up's Idempotency-Key no longer parses: a bug or a damaged row.
    #[error("stored top-up key: {0}")]
    StoredKey(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Upstream trouble in the owner's words, for the wallet pages: a refusal, or no answer in time.
pub fn upstream_trouble(err: &UpstreamError) -> String {
    match err.class() {
        Class::Definitive => format!("The provider refused the request ({err})."),
        Class::Unknown | Class::RetryAfter(_) => {
            format!("The provider did not answer in time ({err}).")
        }
    }
}
