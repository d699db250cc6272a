//! Queries of fulfilment, after payment: the upstream columns of a purchase, alerts for the
//! admin, the last known wallet, refunds and encrypted installations. Every function runs in
//! the caller's connection or transaction; none talks to upstream.

use diesel::prelude::*;

use crate::db::schema::{alerts, installations, purchases, refunds};
use crate::db::{DbConn, DbError};
use crate::domain::AlertKind;
use crate::domain::purchase::RefundCause;

// ---- purchases: what upstream told us -------------------------------------------------------

/// Stores the accepted order's id (once: an id already set is kept).
pub fn set_upstream_order(
    conn: &mut DbConn,
    purchase_id: &str,
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
    Ok(changed == 1)
}

/// Records the last status upstream reported, verbatim (an unfamiliar one included).
pub fn set_upstream_status(
    conn: &mut DbConn,
    purchase_id: &str,
    status: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(purchases::table.filter(purchases::id.eq(purchase_id)))
        .set((
            purchases::upstream_status.eq(status),
            purchases::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

pub fn set_esim_id(
    conn: &mut DbConn,
    purchase_id: &str,
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
    purchase_id: &str,
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
    Ok(changed == 1)
}

// ---- alerts ---------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = alerts)]
pub struct Alert {
    pub id: i64,
    pub kind: String,
    pub purchase_id: Option<String>,
    pub message: String,
    pub created_at_ms: i64,
    pub resolved_at_ms: Option<i64>,
}

/// Raises an alert unless one of the same kind for the same purchase (or the same kind
/// without a purchase) is still open. Returns whether a row was inserted.
pub fn raise_alert(
    conn: &mut DbConn,
    kind: AlertKind,
    purchase_id: Option<&str>,
    message: &str,
    now_ms: i64,
) -> Result<bool, DbError> {
    let open = alerts::table
        .filter(alerts::kind.eq(kind.as_str()))
        .filter(alerts::resolved_at_ms.is_null())
        .into_boxed();
    let open = match purchase_id {
        Some(id) => open.filter(alerts::purchase_id.eq(id)),
        None => open.filter(alerts::purchase_id.is_null()),
    };
    let existing: i64 = open.count().get_result(conn)?;
    if existing > 0 {
        return Ok(false);
    }
    diesel::insert_into(alerts::table)
        .values((
            alerts::kind.eq(kind.as_str()),
            alerts::purchase_id.eq(purchase_id),
            alerts::message.eq(message),
            alerts::created_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(true)
}

/// Resolves the purchase's open alerts of `kind`; returns how many.
pub fn resolve_alerts_of_kind(
    conn: &mut DbConn,
    purchase_id: &str,
    kind: AlertKind,
    now_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::update(
        alerts::table
            .filter(alerts::purchase_id.eq(purchase_id))
            .filter(alerts::kind.eq(kind.as_str()))
            .filter(alerts::resolved_at_ms.is_null()),
    )
    .set(alerts::resolved_at_ms.eq(now_ms))
    .execute(conn)?)
}

/// Open alerts, oldest first.
pub fn open_alerts(conn: &mut DbConn) -> Result<Vec<Alert>, DbError> {
    Ok(alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .order(alerts::id)
        .select(Alert::as_select())
        .load(conn)?)
}

pub fn alerts_for_purchase(conn: &mut DbConn, purchase_id: &str) -> Result<Vec<Alert>, DbError> {
    Ok(alerts::table
        .filter(alerts::purchase_id.eq(purchase_id))
        .order(alerts::id)
        .select(Alert::as_select())
        .load(conn)?)
}

// ---- refunds --------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = refunds)]
pub struct RefundRow {
    pub id: String,
    pub purchase_id: String,
    pub amount_cents: i64,
    pub idempotency_key: String,
    pub provider_refund_id: Option<String>,
    pub status: String,
    pub reason: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// `RefundCause` as text.
    pub cause: String,
    /// An upstream order was paid from the wallet: the refund is a loss in the books.
    pub keeps_cost: bool,
}

impl RefundRow {
    /// The cause as a type; a value the schema's CHECK would refuse reads as a failed delivery.
    pub fn cause(&self) -> RefundCause {
        RefundCause::parse(&self.cause).unwrap_or(RefundCause::DeliveryFailed)
    }

    /// Not failed: under way or done.
    pub fn is_open(&self) -> bool {
        self.status != "failed"
    }
}

pub fn refund_for(conn: &mut DbConn, purchase_id: &str) -> Result<Option<RefundRow>, DbError> {
    Ok(refunds::table
        .filter(refunds::purchase_id.eq(purchase_id))
        .select(RefundRow::as_select())
        .first(conn)
        .optional()?)
}

/// The purchase's refund row, created (status `pending`, with its idempotency key) if missing:
/// the key is stored before the provider is ever asked, so a retried refund cannot pay twice.
pub fn ensure_refund(
    conn: &mut DbConn,
    purchase_id: &str,
    amount_cents: i64,
    reason: &str,
    cause: RefundCause,
    keeps_cost: bool,
    now_ms: i64,
) -> Result<RefundRow, DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(refunds::table)
            .values((
                refunds::id.eq(format!("rf_{purchase_id}")),
                refunds::purchase_id.eq(purchase_id),
                refunds::amount_cents.eq(amount_cents),
                refunds::idempotency_key.eq(format!("refund-{purchase_id}")),
                refunds::status.eq("pending"),
                refunds::reason.eq(reason),
                refunds::cause.eq(cause.as_str()),
                refunds::keeps_cost.eq(keeps_cost),
                refunds::created_at_ms.eq(now_ms),
                refunds::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(refunds::purchase_id)
            .do_nothing()
            .execute(c)
    })?;
    refund_for(conn, purchase_id)?.ok_or(DbError::Query(diesel::result::Error::NotFound))
}

pub fn set_refund_status(
    conn: &mut DbConn,
    refund_id: &str,
    status: &str,
    provider_refund_id: Option<&str>,
    now_ms: i64,
) -> Result<(), DbError> {
    diesel::update(refunds::table.find(refund_id))
        .set((
            refunds::status.eq(status),
            refunds::provider_refund_id.eq(provider_refund_id),
            refunds::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    Ok(())
}

// ---- installations --------------------------------------------------------------------------

/// An encrypted installation row; see `orders::installation` for the format.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = installations)]
pub struct InstallationRow {
    pub purchase_id: String,
    pub esim_id: String,
    pub key_id: String,
    pub nonce: String,
    pub ciphertext: String,
    pub iccid_last4: String,
    pub created_at_ms: i64,
}

/// Stores an installation once; a second store for the same purchase changes nothing.
pub fn insert_installation(conn: &mut DbConn, row: &InstallationRow) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(installations::table)
            .values(row)
            .on_conflict(installations::purchase_id)
            .do_nothing()
            .execute(c)
    })?;
    Ok(inserted == 1)
}

pub fn installation(
    conn: &mut DbConn,
    purchase_id: &str,
) -> Result<Option<InstallationRow>, DbError> {
    Ok(installations::table
        .find(purchase_id)
        .select(InstallationRow::as_select())
        .first(conn)
        .optional()?)
}

/// Rows encrypted under `key_id`, a page at a time in purchase id order, after the purchase
/// id `after` (for key rotation).
pub fn installations_under_key(
    conn: &mut DbConn,
    key_id: &str,
    after: &str,
    limit: i64,
) -> Result<Vec<InstallationRow>, DbError> {
    Ok(installations::table
        .filter(installations::key_id.eq(key_id))
        .filter(installations::purchase_id.gt(after))
        .order(installations::purchase_id)
        .limit(limit)
        .select(InstallationRow::as_select())
        .load(conn)?)
}

/// How many installations each key id seals, by key id.
pub fn installations_per_key(conn: &mut DbConn) -> Result<Vec<(String, i64)>, DbError> {
    Ok(installations::table
        .group_by(installations::key_id)
        .select((installations::key_id, diesel::dsl::count_star()))
        .order(installations::key_id)
        .load(conn)?)
}

/// Replaces a row's encryption, only if it is still under `old_key_id`.
pub fn reencrypt_installation(
    conn: &mut DbConn,
    purchase_id: &str,
    old_key_id: &str,
    new_key_id: &str,
    nonce: &str,
    ciphertext: &str,
) -> Result<bool, DbError> {
    let changed = diesel::update(
        installations::table
            .filter(installations::purchase_id.eq(purchase_id))
            .filter(installations::key_id.eq(old_key_id)),
    )
    .set((
        installations::key_id.eq(new_key_id),
        installations::nonce.eq(nonce),
        installations::ciphertext.eq(ciphertext),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}
