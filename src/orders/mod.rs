//! Everything after the consumer decides to buy: checkout, payment confirmation, the outbox
//! that places each paid purchase upstream exactly once (the runner in `outbox`, the jobs in
//! `jobs`: placement, tracking, delivery, refunds, consumer emails); and watching the wallet,
//! with the owners' alert emails.

pub mod actions;
pub mod alert_mail;
pub mod checkout;
pub mod confirm;
pub mod installation;
pub(crate) mod jobs;
pub mod links;
pub mod notify;
pub mod outbox;
pub mod reconcile;
pub mod wallet;
