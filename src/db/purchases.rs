//! Purchase rows and the queries that move them. Every status change goes through [`apply`]:
//! the transition table decides, then a conditional `UPDATE` plus an event row record it, in
//! the caller's transaction.

use diesel::prelude::*;

use crate::db::schema::{purchase_events, purchases};
use crate::db::{DbBackend, DbConn, DbError, SelectOf, order_search};
use crate::domain::purchase::{self as lifecycle, Next, PurchaseId, PurchaseStatus, Refusal};
use crate::domain::takings::Takings;
use crate::domain::tax::UnitTax;
use crate::domain::{Cents, Email};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = purchases)]
pub struct Purchase {
    pub id: PurchaseId,
    pub status: PurchaseStatus,
    pub email: Email,
    pub plan_id: String,
    /// What the buyer is charged.
    pub price_cents: Cents,
    /// What upstream charges the shop for the plan (as last known: placement may re-price).
    pub cost_cents: Cents,
    pub reference: String,
    pub idempotency_key: String,
    pub key_generation: i32,
    pub upstream_order_id: Option<String>,
    pub upstream_status: Option<String>,
    pub esim_id: Option<String>,
    /// The hash of the link token made at checkout. Links are looked up and revoked through
    /// `order_link_tokens`, which holds this hash too; the column is unique, so it is still
    /// written, but nothing reads it to open a page.
    pub access_token_hash: String,
    pub payment_provider: String,
    pub payment_session_id: Option<String>,
    pub payment_reference: Option<String>,
    pub expires_at_ms: i64,
    pub paid_at_ms: Option<i64>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// The promotion code the purchase was started with; `price_cents` is then
    /// `list_price_cents − discount_cents`, and is what was charged.
    pub promo_code: Option<String>,
    pub list_price_cents: Option<i64>,
    pub discount_cents: Option<i64>,
    /// The language the customer bought in (`en`, `es`, `de`): its emails are written in it.
    pub language: String,
    /// The version of the terms (in `language`) the buyer agreed to at checkout, and when;
    /// `None` for purchases made before the shop asked.
    pub terms_version: Option<i64>,
    pub terms_accepted_at_ms: Option<i64>,
    /// The checkout this unit was bought in (`checkouts`): its first unit's id, so a single
    /// eSIM's checkout is the purchase itself.
    pub checkout_id: PurchaseId,
    /// Its place in the checkout, from 1.
    pub unit_index: i32,
}

impl Purchase {
    /// Whether this is its checkout's first unit, whose id is the checkout's: the buyer's
    /// links and the payment session are recorded on it.
    pub fn names_checkout(&self) -> bool {
        self.id == self.checkout_id
    }

    /// Its money, given its share of its order's `tax` and what was `refunded` of it (refunds
    /// not failed); the margin is [`Takings::margin`].
    pub fn takings(&self, tax: UnitTax, refunded: Cents) -> Takings {
        Takings::of_purchase(
            self.paid_at_ms.is_some(),
            tax.charged(self.price_cents),
            tax.tax,
            refunded,
            self.upstream_order_id.is_some(),
            self.upstream_status.as_deref(),
            self.cost_cents,
        )
    }

    /// See [`lifecycle::is_abandoned`].
    pub fn is_abandoned(&self, now_ms: i64) -> bool {
        lifecycle::is_abandoned(
            self.status,
            self.paid_at_ms.is_some(),
            self.expires_at_ms,
            now_ms,
        )
    }

    /// The status in words as the console shows it: an abandoned checkout says so, whatever
    /// its stored status (awaiting payment, or payment failed once the sweep ran).
    pub fn status_label(&self, now_ms: i64) -> String {
        if self.is_abandoned(now_ms) {
            "Abandoned checkout".to_string()
        } else {
            self.status.label().to_string()
        }
    }
}

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = purchases)]
pub struct NewPurchase {
    pub id: PurchaseId,
    pub status: String,
    pub email: String,
    pub plan_id: String,
    pub price_cents: i64,
    pub cost_cents: i64,
    pub reference: String,
    pub idempotency_key: String,
    pub access_token_hash: String,
    pub payment_provider: String,
    pub expires_at_ms: i64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// The customer's language code; `None` leaves the column's default (English), so a row
    /// without one can also be written by code that predates the column.
    #[diesel(skip_insertion)]
    pub language: Option<String>,
    /// The checkout it belongs to (its own id for a single eSIM) and its place there, from 1.
    pub checkout_id: PurchaseId,
    pub unit_index: i32,
}

/// Inserts a purchase with its first timeline event, and the forms the console's search
/// finds it by (the order key is its checkout's: the number the buyer quotes finds every unit).
pub fn insert(conn: &mut DbConn, new: &NewPurchase, note: &str) -> Result<(), DbError> {
    let (email_lower, email_domain) = order_search::email_search_columns(&new.email);
    let search = (
        purchases::email_lower.eq(email_lower),
        purchases::email_domain.eq(email_domain),
        purchases::order_key.eq(lifecycle::order_key(new.checkout_id.as_str())),
    );
    let insert = diesel::insert_into(purchases::table);
    match &new.language {
        Some(language) => insert
            .values((new, purchases::language.eq(language), search))
            .execute(conn)?,
        None => insert.values((new, search)).execute(conn)?,
    };
    add_event(conn, &new.id, None, &new.status, note, new.created_at_ms)?;
    Ok(())
}

/// Records the buyer's consent to version `terms_version` of the terms, in the caller's
/// transaction (the one that inserts the purchase).
pub fn record_consent(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    terms_version: i64,
    at_ms: i64,
) -> Result<(), DbError> {
    diesel::update(purchases::table.find(purchase_id))
        .set((
            purchases::terms_version.eq(Some(terms_version)),
            purchases::terms_accepted_at_ms.eq(Some(at_ms)),
        ))
        .execute(conn)?;
    Ok(())
}

pub fn add_event(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    from: Option<&str>,
    to: &str,
    note: &str,
    at_ms: i64,
) -> Result<(), DbError> {
    diesel::insert_into(purchase_events::table)
        .values((
            purchase_events::purchase_id.eq(purchase_id),
            purchase_events::at_ms.eq(at_ms),
            purchase_events::from_status.eq(from),
            purchase_events::to_status.eq(to),
            purchase_events::note.eq(note),
        ))
        .execute(conn)?;
    Ok(())
}

pub fn find(conn: &mut DbConn, id: &PurchaseId) -> Result<Option<Purchase>, DbError> {
    Ok(find_query(id).first(conn).optional()?)
}

/// [`find`]'s query (its plan is checked by a test).
pub fn find_query(
    id: &PurchaseId,
) -> purchases::BoxedQuery<'static, DbBackend, SelectOf<Purchase>> {
    purchases::table
        .filter(purchases::id.eq(id.clone()))
        .select(Purchase::as_select())
        .into_boxed()
}

/// The purchase whose checkout the payment session `session_id` pays: the checkout's first
/// unit, which holds the session (the column is unique, so it is written there only).
pub fn find_by_session(conn: &mut DbConn, session_id: &str) -> Result<Option<Purchase>, DbError> {
    Ok(purchases::table
        .filter(purchases::payment_session_id.eq(session_id))
        .select(Purchase::as_select())
        .first(conn)
        .optional()?)
}

/// Every unit of checkout `checkout_id`, in their order (none for an unknown checkout).
pub fn units_of(conn: &mut DbConn, checkout_id: &PurchaseId) -> Result<Vec<Purchase>, DbError> {
    Ok(purchases::table
        .filter(purchases::checkout_id.eq(checkout_id))
        .order(purchases::unit_index)
        .select(Purchase::as_select())
        .load(conn)?)
}

/// Every unit of the checkout that payment session `session_id` pays, in their order.
pub fn units_by_session(conn: &mut DbConn, session_id: &str) -> Result<Vec<Purchase>, DbError> {
    match find_by_session(conn, session_id)? {
        Some(first) => units_of(conn, &first.checkout_id),
        None => Ok(Vec::new()),
    }
}

/// A change the transition table refused, or the database failing underneath.
#[derive(Debug, thiserror::Error)]
pub enum TransitionError {
    #[error("purchase {0} does not exist")]
    Missing(PurchaseId),
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<diesel::result::Error> for TransitionError {
    fn from(e: diesel::result::Error) -> Self {
        Self::Db(DbError::Query(e))
    }
}

/// What [`apply`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub from: PurchaseStatus,
    pub to: PurchaseStatus,
}

impl Applied {
    /// Whether the status changed (and an event row was written).
    pub fn moved(&self) -> bool {
        self.from != self.to
    }
}

/// Applies `event` to purchase `id` through the transition table
/// ([`PurchaseStatus::on`]), in the caller's transaction: a move is a conditional `UPDATE`
/// (only from the status the table was asked about) plus an event row with `note`; "stay"
/// writes nothing; a refusal is an error the caller must handle.
pub fn apply(
    conn: &mut DbConn,
    id: &PurchaseId,
    event: &lifecycle::PurchaseEvent,
    note: &str,
    now_ms: i64,
) -> Result<Applied, TransitionError> {
    // On PostgreSQL (read committed) another transaction may move the purchase between the
    // read and the update; the table is then asked again about the new status.
    for _ in 0..3 {
        let current = find(conn, id)?.ok_or_else(|| TransitionError::Missing(id.clone()))?;
        let from = current.status;
        let to = match from.on(event)? {
            Next::Stay => return Ok(Applied { from, to: from }),
            Next::To(to) => to,
        };
        let changed = diesel::update(
            purchases::table
                .filter(purchases::id.eq(id))
                .filter(purchases::status.eq(from.as_str())),
        )
        .set((
            purchases::status.eq(to.as_str()),
            purchases::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
        if changed == 1 {
            add_event(conn, id, Some(from.as_str()), to.as_str(), note, now_ms)?;
            return Ok(Applied { from, to });
        }
    }
    Err(TransitionError::Db(DbError::Task(format!(
        "purchase {id} kept changing under {}",
        event.name()
    ))))
}

#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct PurchaseEvent {
    pub id: i64,
    pub purchase_id: PurchaseId,
    pub at_ms: i64,
    pub from_status: Option<String>,
    pub to_status: String,
    pub note: String,
}

pub fn events(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<Vec<PurchaseEvent>, DbError> {
    Ok(events_query(purchase_id).load(conn)?)
}

/// [`events`]'s query (its plan is checked by a test).
pub fn events_query(purchase_id: &PurchaseId) -> purchase_events::BoxedQuery<'static, DbBackend> {
    purchase_events::table
        .filter(purchase_events::purchase_id.eq(purchase_id.clone()))
        .order(purchase_events::id)
        .into_boxed()
}

/// The purchases a provider's payment reference paid: every unit of one checkout, in their
/// order.
pub fn units_by_payment_reference(
    conn: &mut DbConn,
    reference: &str,
) -> Result<Vec<Purchase>, DbError> {
    Ok(purchases::table
        .filter(purchases::payment_reference.eq(reference))
        .order((purchases::checkout_id, purchases::unit_index))
        .select(Purchase::as_select())
        .load(conn)?)
}

/// A paid (or placed) purchase's money or upstream order changed: its day's sales are counted
/// again (`daily_sales`) and its days of the books are marked (`book_days`), in the caller's
/// transaction. Every write of what the dashboard and the books read of a purchase calls it.
pub fn money_changed(conn: &mut DbConn, id: &PurchaseId) -> Result<(), DbError> {
    crate::db::daily_sales::refresh_for(conn, id)?;
    crate::db::book_days::purchase_changed(conn, id)
}

/// Records when the money arrived and the provider's reference for it (refunds need it).
pub fn set_paid(
    conn: &mut DbConn,
    id: &PurchaseId,
    payment_reference: Option<&str>,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(purchases::table.find(id))
        .set((
            purchases::paid_at_ms.eq(now_ms),
            purchases::payment_reference.eq(payment_reference),
        ))
        .execute(conn)?;
    money_changed(conn, id)
}

/// Records the promotion code a purchase was started with: the list price and the discount
/// (`price_cents` is already the discounted price, what is charged).
pub fn set_promo(
    conn: &mut DbConn,
    id: &PurchaseId,
    code: &str,
    list: crate::domain::Cents,
    discount: crate::domain::Cents,
) -> Result<(), DbError> {
    diesel::update(purchases::table.find(id))
        .set((
            purchases::promo_code.eq(code),
            purchases::list_price_cents.eq(list.get()),
            purchases::discount_cents.eq(discount.get()),
        ))
        .execute(conn)?;
    Ok(())
}

/// Up to `limit` purchases still awaiting payment whose payment page expired by `now_ms`.
pub fn expired_unpaid(
    conn: &mut DbConn,
    now_ms: i64,
    limit: i64,
) -> Result<Vec<PurchaseId>, DbError> {
    Ok(purchases::table
        .filter(purchases::status.eq(PurchaseStatus::AwaitingPayment.as_str()))
        .filter(purchases::expires_at_ms.le(now_ms))
        .select(purchases::id)
        .limit(limit)
        .load(conn)?)
}

/// The purchases that balance-transaction `references` name, by their upstream order id or
/// their own reference: `(reference, purchase id)` pairs.
pub fn named_by_references(
    conn: &mut DbConn,
    references: &[String],
) -> Result<Vec<(String, String)>, DbError> {
    if references.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, String, Option<String>)> =
        named_by_references_query(references).load(conn)?;
    Ok(rows
        .into_iter()
        .flat_map(|(id, reference, order)| {
            let by_order = order.map(|o| (o, id.clone()));
            std::iter::once((reference, id)).chain(by_order)
        })
        .filter(|(r, _)| references.contains(r))
        .collect())
}

/// [`named_by_references`]'s query (its plan is checked by a test).
pub fn named_by_references_query(
    references: &[String],
) -> purchases::BoxedQuery<
    'static,
    DbBackend,
    (
        diesel::sql_types::Text,
        diesel::sql_types::Text,
        diesel::sql_types::Nullable<diesel::sql_types::Text>,
    ),
> {
    purchases::table
        .filter(
            purchases::upstream_order_id
                .eq_any(references.to_vec())
                .or(purchases::reference.eq_any(references.to_vec())),
        )
        .select((
            purchases::id,
            purchases::reference,
            purchases::upstream_order_id,
        ))
        .into_boxed()
}

/// Records the provider session created for an awaiting checkout, on its first unit (the
/// purchase whose id is the checkout's).
pub fn set_payment_session(
    conn: &mut DbConn,
    id: &PurchaseId,
    session_id: &str,
) -> Result<(), DbError> {
    diesel::update(purchases::table.find(id))
        .set(purchases::payment_session_id.eq(session_id))
        .execute(conn)?;
    Ok(())
}

/// Replaces the customer's address: the emails sent from now on go to `email`.
pub fn set_email(
    conn: &mut DbConn,
    id: &PurchaseId,
    email: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    let (email_lower, email_domain) = order_search::email_search_columns(email);
    diesel::update(purchases::table.find(id))
        .set((
            purchases::email.eq(email),
            purchases::email_lower.eq(email_lower),
            purchases::email_domain.eq(email_domain),
            purchases::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

// ---- what upstream told us ----------------------------------------------------------------

/// Stores the accepted order's id (once: an id already set is kept).
pub fn set_upstream_order(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    order_id: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        purchases::table
            .filter(purchases::id.eq(purchase_id))
            .filter(purchases::upstream_order_id.is_null()),
    )
    .set((
        purchases::upstream_order_id.eq(order_id),
        purchases::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if changed == 1 {
        money_changed(conn, purchase_id)?;
    }
    Ok(changed == 1)
}

/// Records the last status upstream reported, verbatim (an unfamiliar one included).
pub fn set_upstream_status(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    status: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(purchases::table.filter(purchases::id.eq(purchase_id)))
        .set((
            purchases::upstream_status.eq(status),
            purchases::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    money_changed(conn, purchase_id)
}

pub fn set_esim_id(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    esim_id: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(purchases::table.filter(purchases::id.eq(purchase_id)))
        .set((
            purchases::esim_id.eq(esim_id),
            purchases::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

/// After a definitive `price_changed`: the new cost and a new idempotency key under the next
/// key generation, only if the purchase is still at `from_generation` and has no order.
/// Returns whether it changed.
pub fn reprice(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    from_generation: i32,
    new_cost_cents: i64,
    new_key: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        purchases::table
            .filter(purchases::id.eq(purchase_id))
            .filter(purchases::key_generation.eq(from_generation))
            .filter(purchases::upstream_order_id.is_null()),
    )
    .set((
        purchases::cost_cents.eq(new_cost_cents),
        purchases::idempotency_key.eq(new_key),
        purchases::key_generation.eq(from_generation.saturating_add(1)),
        purchases::updated_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if changed == 1 {
        // Its cost is on its line of the books once upstream has an order for it.
        crate::db::book_days::purchase_changed(conn, purchase_id)?;
    }
    Ok(changed == 1)
}
