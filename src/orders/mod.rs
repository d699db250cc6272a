//! Everything after the consumer decides to buy: checkout, payment confirmation, the outbox
//! that places each paid purchase upstream exactly once (the runner in `outbox`, the jobs in
//! `jobs`: placement, tracking, delivery, refunds, consumer emails), the owner's actions on a
//! purchase and reconciliation by reference. The supplier wallet (balance, pause, alerts,
//! top-ups) is `crate::wallet`'s.

pub mod actions;
pub mod backlog;
pub mod checkout;
pub mod checkout_reminder;
pub mod confirm;
pub mod console;
pub mod installation;
pub(crate) mod jobs;
pub mod links;
pub mod lost_link;
pub mod my_esims;
pub mod notify;
pub mod outbox;
pub mod page;
pub mod receipts;
pub mod reconcile;
pub mod retention;
pub mod send_unit;
pub mod tax;
pub mod trip;
pub mod upstream_gate;

/// Orders as a service: what the web layer holds to show and act on purchases (the console's
/// reads and actions, the private order page, payment events, lost links). Each capability
/// function takes it and reaches the database through it, so no handler handles the database
/// itself.
#[derive(Clone)]
pub struct Orders {
    db: crate::db::Db,
    /// The shop's identity, which receipts name as the seller when they are issued.
    identity: std::sync::Arc<crate::shop::ShopIdentity>,
}

impl Orders {
    pub fn new(db: crate::db::Db, identity: std::sync::Arc<crate::shop::ShopIdentity>) -> Self {
        Self { db, identity }
    }

    pub(crate) fn db(&self) -> &crate::db::Db {
        &self.db
    }

    /// Whether the database answers and its migrations are applied (`/readyz`).
    pub async fn check_ready(&self) -> Result<(), crate::db::DbError> {
        self.db.check_ready().await
    }
}
