//! Checkout: turn "buy this plan" into a purchase awaiting payment, but only for a sale the
//! shop can complete — the plan still exists upstream at the price shown, the provider can
//! charge that much, and the wallet covers it after every purchase already counting on it.
//!
//! # Unpaid checkouts cannot block the shop
//!
//! A checkout nobody pays must not lock the wallet away from paying customers. The credit a
//! new sale may use is `available − paid purchases not yet placed − counted unpaid holds`,
//! where:
//!
//! - an unpaid checkout holds its upstream cost for [`HOLD_TTL`] (10 minutes) only. Its
//!   payment page stays open for [`CHECKOUT_TTL`], and a payment that arrives after the hold
//!   ended is still honoured as before: only the hold ends;
//! - one client ([`ClientKey`]: an IPv4 address or an IPv6 /64) and one email each keep at
//!   most [`MAX_HOLDS_PER_CLIENT`] / [`MAX_HOLDS_PER_EMAIL`] holds: a newer checkout's hold
//!   takes the place of the oldest, which ends at once;
//! - all unpaid holds together count for at most [`HOLD_SHARE_BPS`] of the credit left after
//!   paid purchases ([`Credit`]). A hold that does not fit is recorded already ended.
//!
//! Beyond a cap the checkout still proceeds; it is not refused. Addresses are shared (a
//! carrier's NAT, an office, a family), emails cost nothing to invent, and a shopper who
//! opened three payment pages while deciding is about to pay for the fourth: refusing at the
//! cap would turn away real buyers while a determined stranger with many addresses is
//! stopped by the global cap anyway. Uncounted, the sale is still checked against the
//! wallet like any other, so it is never sold against credit the shop knows it lacks; what
//! it loses is only the reservation against other buyers paying first, which the placement's
//! `insufficient_balance` handling covers. The per-process rate limit (`web::rate_limit`)
//! stays the first line against request floods. The holds live in the database with their
//! client and email, so the caps hold across replicas.
//!
//! # The price check never drives the shop into the upstream rate limit
//!
//! The plan is re-read live (`GET /plans/{id}`) unless the catalog snapshot is at most
//! [`SNAPSHOT_FRESH`] old, in which case it already is that price. While the upstream's
//! `Retry-After` gate is closed no checkout sends anything upstream (nor re-reads the
//! balance), and each process sends at most [`LIVE_READS_PER_MINUTE`] re-reads, so a flood of
//! checkouts cannot bring the 429 on in the first place (it would hold back the placement of
//! paid orders too). In both cases the price comes from the snapshot if its last good sync
//! is at most [`SNAPSHOT_MAX_AGE_WHILE_LIMITED`] old. A price that changed since is caught
//! when the order is placed (`price_changed`: retried under the margin guard, or left for the
//! owner), as is a plan withdrawn since (a definitive refusal: refunded); that is the cost of
//! staying open while the live check is unavailable, and the catalog's age bounds it. With an
//! older snapshot (syncs have been failing) the sale is refused as temporarily unavailable:
//! the shop would be selling from a catalog it cannot vouch for.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use url::Url;

use crate::catalog::{ShopPlan, Snapshot};
use crate::db::holds::{HeldBy, NewHold};
use crate::db::promo::NewRedemption;
use crate::db::purchases::NewPurchase;
use crate::db::purchases::TransitionError;
use crate::db::{self, Db, DbConn, DbError};
use crate::domain::pricing::PlanKey;
use crate::domain::promo::{self, Discount, PromoRefusal, PromoScope};
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::domain::units::{Quantity, Traveller};
use crate::domain::{Cents, ClientKey, Email, PurchaseId};
use crate::i18n::Lang;
use crate::orders::links::{hash_token, new_token, return_url};
use crate::payments::{CheckoutRequest, PaymentError, PaymentProvider, Provider};
use crate::shop::TermsConsent;
use crate::upstream::{Class, IdempotencyKey, PartnerClient, PathId};

/// How long an unpaid checkout's payment page stays open (its purchase then expires).
pub const CHECKOUT_TTL: Duration = Duration::from_secs(30 * 60);
/// How long an unpaid checkout holds wallet credit.
pub const HOLD_TTL: Duration = Duration::from_secs(10 * 60);
/// Counted holds per client (IPv4 address or IPv6 /64).
pub const MAX_HOLDS_PER_CLIENT: usize = 3;
/// Counted holds per email.
pub const MAX_HOLDS_PER_EMAIL: usize = 3;
/// Checkouts from one client that may hold running reservations of one capped promotion code.
pub const MAX_PROMO_RESERVATIONS_PER_CLIENT: i64 = 3;
/// The share of the free credit (after paid purchases) that unpaid holds may take together,
/// in basis points.
pub const HOLD_SHARE_BPS: i64 = 2_500;
/// The wallet is re-read from upstream when older than this.
pub const WALLET_MAX_AGE: Duration = Duration::from_secs(60);
/// A catalog synced this recently is the live price: no re-read.
pub const SNAPSHOT_FRESH: Duration = Duration::from_secs(60);
/// While upstream rate-limits the shop, sales continue from a catalog at most this old.
pub const SNAPSHOT_MAX_AGE_WHILE_LIMITED: Duration = Duration::from_secs(30 * 60);
/// Live price re-reads one process sends per minute; checkouts beyond it are priced as while
/// upstream rate-limits the shop.
pub const LIVE_READS_PER_MINUTE: u32 = 30;

/// This process's budget of the upstream reads checkouts cause, live price re-reads and
/// balance re-reads alike (a fixed one-minute window).
#[derive(Debug)]
pub struct LiveReads {
    limit: u32,
    window: Mutex<(Instant, u32)>,
}

impl LiveReads {
    pub fn new(limit: u32) -> Self {
        Self {
            limit,
            window: Mutex::new((Instant::now(), 0)),
        }
    }

    /// Takes one re-read from the budget; false when this minute's is spent.
    pub fn take(&self) -> bool {
        let now = Instant::now();
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        if now.duration_since(window.0) >= Duration::from_secs(60) {
            *window = (now, 0);
        }
        if window.1 >= self.limit {
            return false;
        }
        window.1 += 1;
        true
    }
}

impl Default for LiveReads {
    fn default() -> Self {
        Self::new(LIVE_READS_PER_MINUTE)
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// What the consumer asked for, already parsed.
#[derive(Debug, Clone)]
pub struct CheckoutForm {
    pub plan_id: String,
    pub email: Email,
    /// The price the consumer saw (hidden field); the catalog price when absent.
    pub expected_price: Option<Cents>,
    /// Who is buying, as the hold caps count them.
    pub client: ClientKey,
    /// The language of the page the customer bought from: its emails are written in it.
    pub language: Lang,
    /// A promotion code, normalised (`domain::promo::normalise_code`).
    pub promo_code: Option<String>,
    /// The buyer's consent to the terms in `language`, stored with the purchase.
    pub terms: TermsConsent,
    /// How many eSIMs (units) of the plan, each its own upstream order.
    pub quantity: Quantity,
    /// Who each unit is for, in unit order (at most `quantity`; missing ones are nobody in
    /// particular).
    pub travellers: Vec<Traveller>,
    /// The departure day, if the buyer gave one: stored with the checkout, its reminder queued.
    pub trip: Option<crate::orders::trip::TripAsk>,
    /// The buyer asked for a reminder should they not pay (`orders::checkout_reminder`).
    pub remind_unfinished: bool,
    /// The country of the client's address, when the trusted proxy in front of the shop names
    /// it: kept with the checkout as evidence for its tax (`orders::tax`).
    pub client_country: Option<crate::domain::tax::CountryCode>,
}

/// The wallet as a new sale sees it, in upstream cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Credit {
    /// The last known `availableCents`.
    pub available: i64,
    /// Paid purchases not yet placed upstream.
    pub paid_unplaced: i64,
    /// Unpaid checkouts' holds still running.
    pub held: i64,
}

impl Credit {
    /// What paid purchases leave.
    pub fn free(&self) -> i64 {
        self.available.saturating_sub(self.paid_unplaced)
    }

    /// The most unpaid holds may count for together.
    pub fn hold_budget(&self) -> i64 {
        let share = i128::from(self.free().max(0)) * i128::from(HOLD_SHARE_BPS) / 10_000;
        i64::try_from(share).unwrap_or(i64::MAX)
    }

    /// What a new sale may still use: never less than the free credit minus the hold budget,
    /// however many checkouts are open.
    pub fn headroom(&self) -> i64 {
        self.free()
            .saturating_sub(self.held.clamp(0, self.hold_budget()))
    }

    /// Whether one more hold of `cost` stays within the hold budget.
    pub fn hold_fits(&self, cost: i64) -> bool {
        self.held.max(0).saturating_add(cost) <= self.hold_budget()
    }
}

/// An email as the hold cap counts it: lower case, and without a `+tag` (one mailbox).
pub fn email_key(email: &Email) -> String {
    let lower = email.as_str().to_lowercase();
    match lower.split_once('@') {
        Some((local, domain)) => {
            let local = local
                .split('+')
                .next()
                .filter(|base| !base.is_empty())
                .unwrap_or(local);
            format!("{local}@{domain}")
        }
        None => lower,
    }
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
    /// Upstream answered 429 to the price check (turned into a snapshot price or
    /// `UpstreamUnavailable` before it leaves this module).
    #[error("the supplier is rate-limiting the shop")]
    RateLimited,
    #[error("the payment provider cannot be reached right now")]
    Payment(#[from] PaymentError),
    /// The promotion code cannot be used for this purchase (nothing was reserved).
    #[error(transparent)]
    Promo(#[from] PromoRefusal),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Transition(#[from] TransitionError),
}

/// A checkout created and its payment page ready.
pub struct Started {
    /// The checkout's id (its first unit's): the buyer's order page.
    pub purchase_id: PurchaseId,
    /// The private order token for the buyer's cookie (only its hash is stored).
    pub token: String,
    pub redirect_url: Url,
}

/// The token opens the buyer's eSIM, and the provider's page address may carry a session
/// secret: neither is printed.
impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Started")
            .field("purchase_id", &self.purchase_id)
            .field("token", &"[redacted]")
            .field("redirect_url", &"[redacted]")
            .finish()
    }
}

/// What one payment session pays for: a checkout's units.
#[derive(Debug, Clone)]
pub struct SessionCheckout {
    /// The first unit, whose id is the checkout's (the buyer's order page).
    pub first: crate::db::purchases::Purchase,
    /// How many units.
    pub count: u32,
    /// Every unit's price: what the payment is before any tax added on top.
    pub total: Cents,
    /// The tax mode the checkout was started under.
    pub tax: crate::domain::tax::TaxMode,
}

/// What a payer of `country` is charged for a checkout, by the shop's tax table.
#[derive(Debug, Clone, Copy)]
pub struct TaxQuote {
    pub split: crate::domain::tax::TaxSplit,
    /// `None`: no rate is kept for the country, nothing is taxed.
    pub rate: Option<crate::domain::tax::RateBps>,
}

/// The checkout service: built once when the app starts and shared by every request; the
/// catalog snapshot a request shows is passed to [`Checkout::start`] with the form.
pub struct Checkout {
    pub db: Db,
    pub upstream: PartnerClient,
    pub payments: Arc<Provider>,
    pub public_url: Url,
    pub account: Arc<crate::wallet::SupplierAccount>,
    /// This process's budget of the upstream reads checkouts cause (prices and the balance).
    pub live_reads: LiveReads,
    /// The process's coalescing balance reader (`wallet::BalanceRefresher`).
    pub balance: crate::wallet::BalanceRefresher,
    /// `STOREFRONT_MIN_MARGIN_CENTS`: no promotion code takes a price below cost plus this.
    pub min_margin: Cents,
}

impl Checkout {
    /// The checkout paid through the payment session `session_id` (the demo payment page).
    pub async fn checkout_for_session(
        &self,
        session_id: String,
    ) -> Result<Option<SessionCheckout>, DbError> {
        let (units, tax) = self
            .db
            .run(move |conn| {
                let units = crate::db::purchases::units_by_session(conn, &session_id)?;
                let tax = match units.first() {
                    Some(first) => db::checkouts::tax_mode(conn, &first.checkout_id)?,
                    None => None,
                };
                Ok::<_, DbError>((units, tax))
            })
            .await?;
        let total = Cents::new(units.iter().map(|unit| unit.price_cents.get()).sum());
        let count = u32::try_from(units.len()).unwrap_or(u32::MAX);
        Ok(units.into_iter().next().map(|first| SessionCheckout {
            first,
            count,
            total,
            tax: crate::domain::tax::TaxMode::from_stored(tax.as_deref()),
        }))
    }

    /// What `checkout` charges a payer of `country` by the shop's tax table: the demo payment
    /// page's amount, which the payment is then checked against (`orders::tax::assess`).
    pub async fn tax_quote(
        &self,
        checkout: &SessionCheckout,
        country: crate::domain::tax::CountryCode,
    ) -> Result<TaxQuote, DbError> {
        let (mode, total) = (checkout.tax, checkout.total);
        let (split, rate) = self
            .db
            .run(move |conn| crate::orders::tax::table_quote(conn, mode, Some(&country), total))
            .await?;
        Ok(TaxQuote { split, rate })
    }

    /// Starts a checkout for `form`'s plan as `snapshot` (the catalog the buyer was shown)
    /// lists it.
    #[tracing::instrument(skip_all, fields(plan.id = %form.plan_id))]
    pub async fn start(
        &self,
        snapshot: &Snapshot,
        form: CheckoutForm,
    ) -> Result<Started, CheckoutError> {
        self.account.sales_allowed()?;
        let plan = snapshot
            .plan(&form.plan_id)
            .filter(|p| p.available)
            .ok_or(CheckoutError::UnknownPlan)?;
        let shown = form
            .expected_price
            .or(plan.price)
            .ok_or(CheckoutError::NotSellable)?;

        let (cost, price) = self.price_now(snapshot, plan).await?;
        if price != shown {
            return Err(CheckoutError::PriceChanged { new_price: price });
        }
        if price < self.payments.minimum_charge() {
            return Err(CheckoutError::NotSellable);
        }
        self.refresh_wallet_if_stale().await;

        let now = db::now_ms();
        let id = PurchaseId::generate();
        let token = new_token();
        let quantity = form.quantity;
        let units: Vec<NewPurchase> = quantity
            .indexes()
            .map(|unit_index| {
                let unit_id = if unit_index == 1 {
                    id.clone()
                } else {
                    PurchaseId::generate()
                };
                NewPurchase {
                    id: unit_id.clone(),
                    status: PurchaseStatus::AwaitingPayment.as_str().to_string(),
                    email: form.email.as_str().to_string(),
                    plan_id: plan.id.clone(),
                    price_cents: price.get(),
                    cost_cents: cost.get(),
                    reference: format!("sf-{unit_id}"),
                    idempotency_key: IdempotencyKey::generate().as_str().to_string(),
                    // The buyer's token is the first unit's; the others get one nobody is
                    // given (their travellers' links are issued when their emails go out).
                    access_token_hash: if unit_index == 1 {
                        hash_token(&token)
                    } else {
                        hash_token(&new_token())
                    },
                    payment_provider: self.payments.name().to_string(),
                    expires_at_ms: now + ms(CHECKOUT_TTL),
                    created_at_ms: now,
                    updated_at_ms: now,
                    language: Some(form.language.code().to_string()),
                    checkout_id: id.clone(),
                    unit_index,
                }
            })
            .collect();
        let promo = form.promo_code.clone().map(|code| PromoAsk {
            code,
            plan_id: plan.id.clone(),
            country_code: plan.country_code.clone(),
            region: plan.region.clone(),
            // The provider's minimum charge is a floor too: a code never makes a plan unpayable.
            min_margin: self.min_margin.max(Cents::new(
                self.payments.minimum_charge().get() - cost.get(),
            )),
            email_key: email_key(&form.email),
            reserved_until_ms: now + ms(CHECKOUT_TTL),
        });
        // One hold for the whole checkout, on its first unit: the caps per client and email
        // count shoppers' checkouts, and a family's order is one checkout, held or not as a
        // whole (never some of its eSIMs reserved and others not).
        let hold = NewHold {
            purchase_id: id.clone(),
            client_key: form.client.to_string(),
            email_key: email_key(&form.email),
            cost_cents: quantity.times(cost).get(),
            created_at_ms: now,
            expires_at_ms: now + ms(HOLD_TTL),
        };
        let terms = form.terms;
        let travellers = form.travellers.clone();
        let trip = form.trip;
        let remind_unfinished = form.remind_unfinished;
        let client_country = form.client_country.clone();
        let admitted = self
            .db
            .run(move |conn| {
                conn.write_tx(|conn| {
                    let mut units = units;
                    let counted = admit(conn, &mut units, hold, promo.as_ref())?;
                    for (unit, traveller) in units.iter().zip(&travellers) {
                        if !traveller.is_empty() {
                            db::travellers::insert(conn, &unit.id, traveller)?;
                        }
                    }
                    for unit in &units {
                        db::purchases::record_consent(conn, &unit.id, terms.version, now)?;
                    }
                    // The buyer's link is a row of the first unit that opens the checkout.
                    let first = units.first().ok_or(Admission::NoUnits)?;
                    db::order_links::insert(conn, &first.id, &first.access_token_hash, true, now)?;
                    if trip.is_some() {
                        crate::orders::trip::record_in(conn, &first.id, trip, now)?;
                    }
                    if remind_unfinished {
                        crate::orders::checkout_reminder::consent_in(
                            conn,
                            &first.id,
                            first.expires_at_ms,
                            now,
                        )?;
                    }
                    // The checkout keeps the tax mode it starts under (`orders::tax`).
                    let tax = db::tax::mode(conn)?;
                    db::checkouts::set_tax_mode(
                        conn,
                        &first.id,
                        tax.stored(),
                        client_country.as_ref().map(|c| c.as_str()),
                    )?;
                    Ok((counted, first.price_cents, tax))
                })
            })
            .await;
        let (price, tax) = match admitted {
            Ok((held, charged, tax)) => {
                if !held {
                    tracing::info!(plan.id = %plan.id, "checkout beyond the hold caps: no credit held");
                }
                (Cents::new(charged), tax)
            }
            Err(Admission::WalletShort) => {
                tracing::warn!(plan.id = %plan.id, "sale refused: the wallet cannot cover it");
                return Err(CheckoutError::WalletShort);
            }
            Err(Admission::Promo(refusal)) => return Err(refusal.into()),
            Err(Admission::Db(err)) => return Err(err.into()),
            Err(Admission::NoUnits) => return Err(CheckoutError::NotSellable),
        };

        // The way back carries no token: the cookie set with the redirect opens the page.
        let order_page = return_url(&self.public_url, &id);
        let request = CheckoutRequest {
            purchase_id: id.clone(),
            amount: price,
            quantity: quantity.get(),
            email: form.email,
            description: {
                let plan_text = plan.title(form.language);
                match &form.promo_code {
                    Some(code) => form.language.ta(
                        "checkout-description-promo",
                        &[("plan", plan_text.into()), ("code", code.clone().into())],
                    ),
                    None => plan_text,
                }
            },
            success_url: order_page.clone(),
            cancel_url: order_page,
            idempotency_key: format!("checkout-{id}"),
            // Stripe's shortest allowed expiry is 30 minutes after creation: a payment in the
            // last minute after our own expiry still lands and is honoured (payment_failed →
            // paid is an allowed move).
            expires_at_unix: Some(now / 1000 + ms(CHECKOUT_TTL) / 1000 + 60),
            tax,
        };
        let session = match self.payments.create_checkout(&request).await {
            Ok(session) => session,
            Err(err) => {
                let checkout_id = id.clone();
                let reason = err.to_string();
                self.db
                    .run(move |conn| {
                        conn.write_tx(|conn| {
                            for unit in db::purchases::units_of(conn, &checkout_id)? {
                                db::purchases::apply(
                                    conn,
                                    &unit.id,
                                    &PurchaseEvent::CheckoutAbandoned,
                                    &format!("the payment page could not be created: {reason}"),
                                    db::now_ms(),
                                )?;
                            }
                            Ok::<_, TransitionError>(())
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
        tracing::info!(purchase.id = %id, plan.id = %plan.id, checkout.units = quantity.get(), "checkout started");
        Ok(Started {
            purchase_id: id,
            token,
            redirect_url: session.redirect_url,
        })
    }

    /// The plan's cost and the consumer price it gives now: from the snapshot when it is
    /// fresh, or while upstream rate-limits the shop and it is not too old; live otherwise.
    async fn price_now(
        &self,
        snapshot: &Snapshot,
        plan: &ShopPlan,
    ) -> Result<(Cents, Cents), CheckoutError> {
        let age = snapshot
            .last_good_sync
            .as_ref()
            .map(|sync| db::now_ms().saturating_sub(sync.started_at_ms));
        let gated = self.upstream.gate_opens_at().is_some();
        let source = match price_source(age, gated) {
            // Only a read that will be sent spends the budget.
            PriceSource::Live if !self.live_reads.take() => price_source(age, true),
            source => source,
        };
        match source {
            PriceSource::Snapshot => return self.snapshot_price(plan),
            PriceSource::Refuse => {
                tracing::warn!(plan.id = %plan.id, "sale refused: rate-limited upstream and an old catalog");
                return Err(CheckoutError::UpstreamUnavailable);
            }
            PriceSource::Live => {}
        }
        match self.live_price(snapshot, plan).await {
            // A 429 met just now: the same rule as a gate found closed.
            Err(CheckoutError::RateLimited) => match price_source(age, true) {
                PriceSource::Snapshot => self.snapshot_price(plan),
                _ => Err(CheckoutError::UpstreamUnavailable),
            },
            other => other,
        }
    }

    fn snapshot_price(&self, plan: &ShopPlan) -> Result<(Cents, Cents), CheckoutError> {
        let price = plan.price.ok_or(CheckoutError::NotSellable)?;
        Ok((plan.cost, price))
    }

    /// The plan's live cost and the consumer price it gives now.
    async fn live_price(
        &self,
        snapshot: &Snapshot,
        plan: &ShopPlan,
    ) -> Result<(Cents, Cents), CheckoutError> {
        let path = PathId::parse(plan.id.as_str()).map_err(|_| CheckoutError::UnknownPlan)?;
        match self.upstream.plan(&path).await {
            Ok(live) => {
                if live.currency != "USD" {
                    return Err(CheckoutError::NotSellable);
                }
                let cost = live.price_cents.cents();
                let price = snapshot
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
            Err(err) if matches!(err.class(), Class::RetryAfter(_)) => {
                tracing::warn!(plan.id = %plan.id, error = %err, "plan re-read rate-limited at checkout");
                Err(CheckoutError::RateLimited)
            }
            Err(err) => {
                tracing::warn!(plan.id = %plan.id, error = %err, "plan re-read failed at checkout");
                Err(CheckoutError::UpstreamUnavailable)
            }
        }
    }

    /// Re-reads `GET /balance` when the stored one is older than a minute, through the
    /// process's coalescing reader: concurrent checkouts share one read, a read that just
    /// failed is not repeated at once, and each read is taken from the same budget as the
    /// live price re-reads. A failed or skipped read keeps the stored value (the check then
    /// uses what is known, or refuses when nothing is). Nothing is sent while upstream
    /// rate-limits the shop. A busy pool is waited for as usual (a burst of checkouts must not
    /// decide on a stale wallet); a database known to be down costs
    /// [`db::QUICK_POOL_TIMEOUT`] (see [`Db::run_within`]), and one such wait is enough before
    /// the 503.
    async fn refresh_wallet_if_stale(&self) {
        if self.upstream.gate_opens_at().is_some() {
            return;
        }
        self.balance
            .refresh_if_older_than(&self.db, &self.upstream, WALLET_MAX_AGE, || {
                self.live_reads.take()
            })
            .await;
    }
}

/// Where the checkout's price comes from, given the age of the last good catalog sync (none:
/// never synced) and whether upstream is rate-limiting the shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    Snapshot,
    Live,
    Refuse,
}

pub fn price_source(snapshot_age_ms: Option<i64>, rate_limited: bool) -> PriceSource {
    match snapshot_age_ms {
        Some(age) if age <= ms(SNAPSHOT_FRESH) => PriceSource::Snapshot,
        Some(age) if rate_limited && age <= ms(SNAPSHOT_MAX_AGE_WHILE_LIMITED) => {
            PriceSource::Snapshot
        }
        _ if rate_limited => PriceSource::Refuse,
        _ => PriceSource::Live,
    }
}

/// Why [`admit`] rolled back.
#[derive(Debug, thiserror::Error)]
enum Admission {
    #[error("the wallet cannot cover this sale")]
    WalletShort,
    #[error(transparent)]
    Promo(#[from] PromoRefusal),
    #[error(transparent)]
    Db(#[from] DbError),
    /// A checkout of no eSIM (`Quantity` makes it impossible).
    #[error("a checkout needs at least one eSIM")]
    NoUnits,
}

/// A promotion code to apply to a checkout, with what its rules look at.
#[derive(Debug, Clone)]
struct PromoAsk {
    code: String,
    plan_id: String,
    country_code: String,
    region: Option<String>,
    /// The least margin over cost the discounted price keeps.
    min_margin: Cents,
    email_key: String,
    reserved_until_ms: i64,
}

/// In the admission's transaction, with the code's row locked: checks the code (enabled, in
/// its window, covering the plan, a use left overall for every unit counting verified uses
/// and reservations still running, room among this client's reservations, a use left for
/// this email for every unit counting verified uses) and applies it to every unit's price;
/// returns the code as stored and the offer. [`record_promo`] then holds one use per unit
/// once the purchase rows exist.
///
/// Every unit is one use, and a checkout takes the code for all its units or is refused
/// ([`PromoRefusal::TooManyUnits`] when the code has uses left, but fewer than the units):
/// eSIMs of one order at two prices would be a surprise on the payment page.
///
/// A reservation keeps the last use for one buyer however many try at once, but an unpaid one
/// must not let a stranger squat a code's last uses: one client holds at most
/// [`MAX_PROMO_RESERVATIONS_PER_CLIENT`] running reservations of a capped code, and a
/// reservation never counts against the cap per email, so nobody can hold a use in someone
/// else's name (that cap counts verified uses only, and its refusal reads like any other use
/// refusal: it does not say that the address used the code).
fn apply_promo(
    conn: &mut DbConn,
    units: &mut [NewPurchase],
    ask: &PromoAsk,
    client_key: &str,
) -> Result<(String, promo::Offer), Admission> {
    let first = units.first().ok_or(Admission::NoUnits)?;
    let now = first.created_at_ms;
    let (list, cost) = (Cents::new(first.price_cents), Cents::new(first.cost_cents));
    let count = i64::try_from(units.len()).unwrap_or(i64::MAX);
    // Room for `count` more uses beyond `taken` under `cap`.
    let room = |taken: i64, cap: Option<i64>| {
        if promo::has_room(taken.saturating_add(count - 1), cap) {
            Ok(())
        } else if promo::has_room(taken, cap) {
            Err(PromoRefusal::TooManyUnits)
        } else {
            Err(PromoRefusal::UsedUp)
        }
    };
    db::promo::lock(conn, &ask.code)?;
    let row = db::promo::find(conn, &ask.code)?
        .filter(|row| row.disabled_at_ms.is_none())
        .ok_or(PromoRefusal::Unknown)?;
    let discount = Discount::from_parts(&row.kind, row.value).map_err(|_| PromoRefusal::Unknown)?;
    let scope = PromoScope::from_parts(&row.scope_kind, &row.scope_value)
        .map_err(|_| PromoRefusal::Unknown)?;
    promo::check_window(now, row.starts_at_ms, row.ends_at_ms)?;
    let key = PlanKey {
        plan_id: &ask.plan_id,
        country_code: &ask.country_code,
        region: ask.region.as_deref(),
    };
    if !scope.covers(key) {
        return Err(PromoRefusal::OtherPlans.into());
    }
    if row.max_uses.is_some() {
        let running = db::promo::running_reservations(conn, &row.code, None, now)?;
        room(row.used_count.saturating_add(running), row.max_uses)?;
        let mine = db::promo::running_reservations(conn, &row.code, Some(client_key), now)?;
        if mine >= MAX_PROMO_RESERVATIONS_PER_CLIENT {
            return Err(PromoRefusal::HeldByClient.into());
        }
    }
    if row.max_uses_per_email.is_some() {
        let used = db::promo::used_by_email(conn, &row.code, &ask.email_key)?;
        // Said like any other refusal when the address has no use left (see above).
        room(used, row.max_uses_per_email).map_err(|refusal| match refusal {
            PromoRefusal::UsedUp => PromoRefusal::UsedByEmail,
            other => other,
        })?;
    }
    let offer = promo::apply(&discount, list, cost, ask.min_margin);
    if offer.capped {
        tracing::info!(promo.code = %row.code, plan.id = %ask.plan_id, "promotion code capped at the margin floor");
    }
    for unit in units.iter_mut() {
        unit.price_cents = offer.price.get();
    }
    Ok((row.code, offer))
}

/// Records the code, list price and discount on each unit, and reserves one use of the code
/// per unit until the payment page expires: the reservations count against the caps while
/// they run and the units await payment.
fn record_promo(
    conn: &mut DbConn,
    units: &[NewPurchase],
    ask: &PromoAsk,
    code: &str,
    offer: &promo::Offer,
) -> Result<(), Admission> {
    for unit in units {
        db::purchases::set_promo(conn, &unit.id, code, offer.list, offer.discount)?;
        db::promo::reserve(
            conn,
            &NewRedemption {
                purchase_id: unit.id.clone(),
                code: code.to_string(),
                email_key: ask.email_key.clone(),
                state: "reserved".into(),
                reserved_until_ms: ask.reserved_until_ms,
                created_at_ms: unit.created_at_ms,
            },
        )?;
    }
    Ok(())
}

impl From<diesel::result::Error> for Admission {
    fn from(err: diesel::result::Error) -> Self {
        Self::Db(err.into())
    }
}

/// In one write transaction, with the wallet row locked (checkouts on every replica count
/// the same credit one after another): ends the oldest holds of this client and email
/// beyond their caps, checks the sale (every unit's cost) against the credit left, and
/// inserts the checkout, its units and its hold. Returns whether the hold counts. A refusal
/// rolls everything back.
fn admit(
    conn: &mut DbConn,
    units: &mut [NewPurchase],
    mut hold: NewHold,
    promo: Option<&PromoAsk>,
) -> Result<bool, Admission> {
    db::wallet::lock(conn)?;
    // The clock is read once the wallet is locked, not when the request began: a checkout
    // that waited for the lock behind others must not judge their holds by an older time
    // (a hold another checkout ended "now" would still look running at that older time, and
    // this one would end a running hold in its place).
    let now = db::now_ms().max(hold.created_at_ms);
    hold.expires_at_ms += now - hold.created_at_ms;
    hold.created_at_ms = now;
    let Some(wallet) = db::wallet::get(conn)? else {
        return Err(Admission::WalletShort);
    };
    if wallet.sales_paused {
        return Err(Admission::WalletShort);
    }
    // Room for this checkout's hold: the newest holds of the client and the email stay.
    for (by, key, max) in [
        (HeldBy::Client, &hold.client_key, MAX_HOLDS_PER_CLIENT),
        (HeldBy::Email, &hold.email_key, MAX_HOLDS_PER_EMAIL),
    ] {
        let active = db::holds::active(conn, by, key, now)?;
        let beyond = active.get(max.saturating_sub(1)..).unwrap_or_default();
        db::holds::end(conn, beyond, now)?;
    }
    let credit = Credit {
        available: wallet.available_cents,
        paid_unplaced: db::wallet::paid_unplaced_cents(conn)?,
        held: db::holds::held_cents(conn, now)?,
    };
    let cost: i64 = units.iter().map(|unit| unit.cost_cents).sum();
    if credit.headroom() < cost {
        return Err(Admission::WalletShort);
    }
    let counted = credit.hold_fits(hold.cost_cents);
    if !counted {
        hold.expires_at_ms = now;
    }
    // The code is checked before anything is written; its record follows the purchase row.
    let applied = match promo {
        Some(ask) => Some((ask, apply_promo(conn, units, ask, &hold.client_key)?)),
        None => None,
    };
    let note = match &applied {
        Some((_, (code, offer))) => format!(
            "checkout started with promotion code {code} ({} off {})",
            offer.discount, offer.list
        ),
        None => "checkout started".to_string(),
    };
    let first = units.first().ok_or(Admission::NoUnits)?;
    db::checkouts::insert(
        conn,
        &db::checkouts::NewCheckout {
            id: first.checkout_id.clone(),
            access_token_hash: first.access_token_hash.clone(),
            unit_count: i32::try_from(units.len()).unwrap_or(i32::MAX),
            created_at_ms: first.created_at_ms,
        },
    )?;
    let count = units.len();
    for unit in units.iter() {
        let note = if count == 1 {
            note.clone()
        } else {
            format!("{note} (eSIM {} of {count})", unit.unit_index)
        };
        db::purchases::insert(conn, unit, &note)?;
    }
    db::holds::insert(conn, &hold)?;
    if let Some((ask, (code, offer))) = applied {
        record_promo(conn, units, ask, &code, &offer)?;
    }
    Ok(counted)
}

/// Marks purchases whose payment page expired unpaid as `payment_failed`; returns how many.
pub fn expire_unpaid(conn: &mut crate::db::DbConn, now_ms: i64) -> Result<usize, TransitionError> {
    let expired = db::purchases::expired_unpaid(conn, now_ms, 500)?;
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_started_checkout_prints_neither_its_token_nor_the_payment_page() {
        let started = super::Started {
            purchase_id: pid("abc"),
            token: "0123456789abcdef-private".into(),
            redirect_url: url::Url::parse("https://pay.example/cs_secret").expect("url"),
        };
        let shown = format!("{started:?}");
        assert!(
            !shown.contains("private") && !shown.contains("cs_secret"),
            "{shown}"
        );
        assert!(shown.contains("abc"), "{shown}");
    }

    use proptest::prelude::*;

    use super::*;

    fn pid(raw: &str) -> PurchaseId {
        PurchaseId::parse(raw).expect("a purchase id")
    }

    #[test]
    fn holds_count_up_to_a_quarter_of_the_free_credit() {
        let credit = Credit {
            available: 10_000,
            paid_unplaced: 2_000,
            held: 50_000,
        };
        assert_eq!(credit.free(), 8_000);
        assert_eq!(credit.hold_budget(), 2_000);
        assert_eq!(
            credit.headroom(),
            6_000,
            "only the budget of the holds counts"
        );
        assert!(!credit.hold_fits(1));
        let quiet = Credit {
            held: 1_500,
            ..credit
        };
        assert_eq!(quiet.headroom(), 6_500);
        assert!(quiet.hold_fits(500));
        assert!(!quiet.hold_fits(501));
    }

    proptest! {
        #[test]
        fn unpaid_holds_never_take_more_than_their_share(
            available in -1_000_000_i64..100_000_000,
            paid in 0_i64..100_000_000,
            held in 0_i64..i64::MAX / 2,
        ) {
            let credit = Credit { available, paid_unplaced: paid, held };
            let free = available - paid;
            prop_assert!(credit.headroom() >= free - free.max(0) / 4 - 1);
            prop_assert!(credit.headroom() <= free);
        }
    }

    #[test]
    fn the_price_comes_from_the_snapshot_when_fresh_or_while_rate_limited() {
        let fresh = Some(ms(SNAPSHOT_FRESH));
        let old = Some(ms(SNAPSHOT_FRESH) + 1);
        let too_old = Some(ms(SNAPSHOT_MAX_AGE_WHILE_LIMITED) + 1);
        assert_eq!(price_source(fresh, false), PriceSource::Snapshot);
        assert_eq!(price_source(old, false), PriceSource::Live);
        assert_eq!(price_source(None, false), PriceSource::Live);
        assert_eq!(price_source(old, true), PriceSource::Snapshot);
        assert_eq!(price_source(too_old, true), PriceSource::Refuse);
        assert_eq!(price_source(None, true), PriceSource::Refuse);
    }

    #[test]
    fn the_live_read_budget_is_spent_then_refused() {
        let budget = LiveReads::new(2);
        assert!(budget.take());
        assert!(budget.take());
        assert!(!budget.take());
    }

    #[test]
    fn one_mailbox_is_one_email_key() {
        let key = |s: &str| email_key(&Email::parse(s).expect("email"));
        assert_eq!(key("Ana+shop@Example.com"), "ana@example.com");
        assert_eq!(key("ana@example.com"), key("ANA+1@EXAMPLE.COM"));
        assert_eq!(key("+x@example.com"), "+x@example.com");
        assert_ne!(key("ana@example.com"), key("bob@example.com"));
    }
}
