//! The typed client for the upstream Reseller eSIM Partner API (`../shared/partner-api-spec.md`).
//!
//! This module owns everything that crosses the wire to upstream: validated request values
//! ([`types`]) and the resources ([`models`]).

pub mod models;
pub mod types;

pub use models::{
    AcceptedOrder, Balance, BalanceTransaction, CheckoutRequest, CheckoutSession, Country,
    ErrorBody, ErrorDetail, Installation, Order, OrderRequest, OrderStatus, Page, PartnerAccount,
    Plan, Region, TopUpRequest,
};
pub use types::{
    ApiAmount, CountryCode, Cursor, IdempotencyKey, InvalidValue, OrderReference, PageLimit,
    PathId, PlanId, Problem, RegionSlug, TopUpAmount,
};
