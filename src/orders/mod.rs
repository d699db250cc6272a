//! Everything after the consumer decides to buy: checkout, payment confirmation, the outbox
//! that places each paid purchase upstream exactly once (the runner in `outbox`, the jobs in
//! `jobs`: placement, tracking, delivery, refunds, consumer emails), the owner's actions on a
//! purchase and reconciliation by reference. The supplier wallet (balance, pause, alerts,
//! top-ups) is `crate::wallet`'s.

pub mod actions;
pub mod backlog;
pub mod checkout;
pub mod confirm;
pub mod console;
pub mod installation;
pub(crate) mod jobs;
pub mod links;
pub mod lost_link;
pub mod notify;
pub mod outbox;
pub mod page;
pub mod reconcile;
