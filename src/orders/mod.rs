//! Everything after the consumer decides to buy: checkout, payment confirmation, the outbox
//! that places each paid purchase upstream exactly once, tracking, delivery and refunds. The
//! supplier wallet (balance, pause, alerts, top-ups) is `crate::wallet`'s.

pub mod actions;
pub mod checkout;
pub mod confirm;
pub mod installation;
pub mod links;
pub mod notify;
pub mod outbox;
pub mod placement;
pub mod reconcile;
pub mod refund;
pub mod tracking;
