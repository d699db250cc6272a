//! Checkout: turn "buy this plan" into a purchase awaiting payment, but only for a sale the
//! shop can complete — the plan still exists upstream at the price shown, the provider can
//! charge that much, and the wallet covers it after every purchase already counting on it.

use std::time::Duration;

use rand::RngCore;
use url::Url;

use crate::catalog::{ShopPlan, Snapshot};
use crate::config::SecretKey;
use crate::db::purchases::NewPurchase;
use crate::db::purchases::TransitionError;
use crate::db::{self, Db, DbError};
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::domain::{Cents, Email};
use crate::orders::links::{hash_token, order_token, order_url};
use crate::payments::{CheckoutRequest, PaymentError, PaymentProvider, Provider};
use crate::upstream::{Class, IdempotencyKey, PartnerClient, PathId};

/// How long an unpaid checkout holds wallet credit.
pub const CHECKOUT_TTL: Duration = Duration::from_secs(30 * 60);
/// The wallet is re-read from upstream when older than this.
pub const WALLET_MAX_AGE: Duration = Duration::from_secs(60);

/// What the consumer asked for, already parsed.
#[derive(Debug, Clone)]
pub struct CheckoutForm {
    pub plan_id: String,
    pub email: Email,
    /// The price the consumer saw (hidden field); the catalog price when absent.
    pub expected_price: Option<Cents>,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    #[error("unknown plan")]
    UnknownPlan,
    /// The plan is no longer sold upstream.
    #[error("this plan is no longer available")]
    PlanGone,
    #[error("the price changed to {new_price}")]
    PriceChanged { new_price: Cents },
    #[error("this plan cannot be bought online right now")]
    NotSellable,
    #[error("sales are temporarily unavailable")]
    WalletShort,
    #[error("the supplier cannot be reached right now")]
    UpstreamUnavailable,
    /// The supplier account is not known yet, or does not match the payment settings.
    #[error("sales are held: {0}")]
    SalesHeld(#[from] crate::wallet::SalesHeld),
    #[error("the payment provider cannot be reached right now")]
    Payment(#[from] PaymentError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

/// A purchase created and its payment page ready.
#[derive(Debug)]
pub struct Started {
    pub purchase_id: String,
    /// The private order token (only its hash is stored; it can be derived again).
    pub token: String,
    pub redirect_url: Url,
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

pub struct Checkout<'a> {
    pub db: &'a Db,
    pub secret_key: &'a SecretKey,
    pub upstream: &'a PartnerClient,
    pub payments: &'a Provider,
    pub snapshot: &'a Snapshot,
    pub public_url: &'a Url,
    pub account: &'a crate::wallet::SupplierAccount,
}

impl Checkout<'_> {
    pub async fn start(&self, form: CheckoutForm) -> Result<Started, CheckoutError> {
        self.account.sales_allowed()?;
        let plan = self
            .snapshot
            .plan(&form.plan_id)
            .filter(|p| p.available)
            .ok_or(CheckoutError::UnknownPlan)?;
        let shown = form
            .expected_price
            .or(plan.price)
            .ok_or(CheckoutError::NotSellable)?;

        let (cost, price) = self.live_price(plan).await?;
        if price != shown {
            return Err(CheckoutError::PriceChanged { new_price: price });
        }
        if price < self.payments.minimum_charge() {
            return Err(CheckoutError::NotSellable);
        }
        self.refresh_wallet_if_stale().await;

        let now = db::now_ms();
        let id = random_hex(10);
        let token = order_token(self.secret_key, &id);
        let key = IdempotencyKey::generate();
        let new = NewPurchase {
            id: id.clone(),
            status: PurchaseStatus::AwaitingPayment.as_str().to_string(),
            email: form.email.as_str().to_string(),
            plan_id: plan.id.clone(),
            price_cents: price.get(),
            cost_cents: cost.get(),
            reference: format!("sf-{id}"),
            idempotency_key: key.as_str().to_string(),
            access_token_hash: hash_token(&token),
            payment_provider: self.payments.name().to_string(),
            expires_at_ms: now + i64::try_from(CHECKOUT_TTL.as_millis()).unwrap_or(i64::MAX),
            created_at_ms: now,
            updated_at_ms: now,
        };
        let accepted = self
            .db
            .run(move |conn| {
                conn.write_tx(|conn| {
                    db::wallet::lock(conn)?;
                    let Some(wallet) = db::wallet::get(conn)? else {
                        return Ok(false);
                    };
                    let committed = db::wallet::committed_cents(conn, now)?;
                    if wallet.sales_paused
                        || wallet.available_cents.saturating_sub(committed) < new.cost_cents
                    {
                        return Ok(false);
                    }
                    db::purchases::insert(conn, &new, "checkout started")?;
                    Ok::<_, DbError>(true)
                })
            })
            .await?;
        if !accepted {
            tracing::warn!(plan.id = %plan.id, "sale refused: the wallet cannot cover it");
            return Err(CheckoutError::WalletShort);
        }

        let order_page = order_url(self.public_url, &id, &token);
        let request = CheckoutRequest {
            purchase_id: id.clone(),
            amount: price,
            email: form.email,
            description: format!("{} · {}", plan.country_name, plan.allowance()),
            success_url: order_page.clone(),
            cancel_url: order_page,
            idempotency_key: format!("checkout-{id}"),
            // Stripe's shortest allowed expiry is 30 minutes after creation: a payment in the
            // last minute after our own expiry still lands and is honoured (payment_failed →
            // paid is an allowed move).
            expires_at_unix: Some(
                now / 1000 + i64::try_from(CHECKOUT_TTL.as_secs()).unwrap_or(0) + 60,
            ),
        };
        let session = match self.payments.create_checkout(&request).await {
            Ok(session) => session,
            Err(err) => {
                let purchase_id = id.clone();
                let reason = err.to_string();
                self.db
                    .run(move |conn| {
                        conn.write_tx(|conn| {
                            db::purchases::apply(
                                conn,
                                &purchase_id,
                                &PurchaseEvent::CheckoutAbandoned,
                                &format!("the payment page could not be created: {reason}"),
                                db::now_ms(),
                            )
                        })
                    })
                    .await?;
                return Err(err.into());
            }
        };
        let (purchase_id, session_id) = (id.clone(), session.id.clone());
        self.db
            .run(move |conn| db::purchases::set_payment_session(conn, &purchase_id, &session_id))
            .await?;
        tracing::info!(purchase.id = %id, plan.id = %plan.id, "checkout started");
        Ok(Started {
            purchase_id: id,
            token,
            redirect_url: session.redirect_url,
        })
    }

    /// The plan's live cost and the consumer price it gives now.
    async fn live_price(&self, plan: &ShopPlan) -> Result<(Cents, Cents), CheckoutError> {
        let path = PathId::parse(plan.id.as_str()).map_err(|_| CheckoutError::UnknownPlan)?;
        match self.upstream.plan(&path).await {
            Ok(live) => {
                if live.currency != "USD" {
                    return Err(CheckoutError::NotSellable);
                }
                let cost = live.price_cents.cents();
                let price = self
                    .snapshot
                    .price_for(plan, cost)
                    .ok_or(CheckoutError::NotSellable)?;
                Ok((cost, price))
            }
            Err(err)
                if err.class() == Class::Definitive
                    && err.status().is_some_and(|s| s.as_u16() == 404) =>
            {
                Err(CheckoutError::PlanGone)
            }
            Err(err) => {
                tracing::warn!(plan.id = %plan.id, error = %err, "plan re-read failed at checkout");
                Err(CheckoutError::UpstreamUnavailable)
            }
        }
    }

    /// Re-reads `GET /balance` when the stored one is older than a minute. A failure keeps the
    /// stored value (the check then uses what is known, or refuses when nothing is).
    async fn refresh_wallet_if_stale(&self) {
        let fresh_enough = self
            .db
            .run(db::wallet::get)
            .await
            .ok()
            .flatten()
            .is_some_and(|w| {
                db::now_ms() - w.refreshed_at_ms
                    < i64::try_from(WALLET_MAX_AGE.as_millis()).unwrap_or(i64::MAX)
            });
        if !fresh_enough {
            crate::orders::wallet::refresh(self.db, self.upstream).await;
        }
    }
}

/// Marks purchases whose payment page expired unpaid as `payment_failed`; returns how many.
pub fn expire_unpaid(conn: &mut crate::db::DbConn, now_ms: i64) -> Result<usize, TransitionError> {
    use diesel::prelude::*;

    use crate::db::schema::purchases;
    let expired: Vec<String> = purchases::table
        .filter(purchases::status.eq(PurchaseStatus::AwaitingPayment.as_str()))
        .filter(purchases::expires_at_ms.le(now_ms))
        .select(purchases::id)
        .limit(500)
        .load(conn)?;
    let mut moved = 0;
    for id in expired {
        let changed = conn.write_tx(|conn| {
            db::purchases::apply(
                conn,
                &id,
                &PurchaseEvent::CheckoutExpired,
                "the payment page expired unpaid",
                now_ms,
            )
        })?;
        moved += usize::from(changed.moved());
    }
    Ok(moved)
}
