//! The typed client for the upstream Reseller eSIM Partner API; `docs/upstream.md` says what it
//! relies on and how it handles what the API leaves unsaid.
//!
//! This module owns everything that crosses the wire to upstream: validated request values
//! ([`types`]), the resources ([`models`]), the classification of every failure ([`error`]),
//! timing rules ([`retry`]), the client itself ([`client`]) and pagination ([`pager`]). The shop's
//! promises (never buy an eSIM twice, never lose a paid order, never leak an activation code)
//! depend on callers branching on [`Class`] and nothing else.

pub mod client;
pub mod error;
pub mod models;
pub mod pager;
pub mod retry;
pub mod types;

#[cfg(test)]
mod bad_answers;

pub use client::{ClientBuildError, Pager, PartnerClient, PlanFilter, UpstreamClientConfig};
pub use error::{Class, ErrorCode, ErrorKind, RawResponse, Refusal, UpstreamError};
pub use models::{
    AcceptedOrder, Balance, BalanceTransaction, CheckoutRequest, CheckoutSession, Country,
    Environment, ErrorBody, ErrorDetail, Installation, Order, OrderRequest, OrderStatus, Page,
    PartnerAccount, Plan, Region, TopUpRequest,
};
pub use pager::PageSource;
pub use retry::{Backoff, GateFuture, SharedGate};
pub use types::{
    ApiAmount, CountryCode, Cursor, IdempotencyKey, InvalidValue, OrderReference, PageLimit,
    PathId, PlanId, Problem, RegionSlug, TopUpAmount,
};
