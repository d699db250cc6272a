//! Refund rows: one per purchase, written (with its idempotency key) before the provider is
//! ever asked, so a retried refund cannot pay out twice.

use diesel::prelude::*;

use crate::db::purchases::Purchase;
use crate::db::schema::refunds;
use crate::db::{DbBackend, DbConn, DbError, SelectOf};
use crate::domain::purchase::{PurchaseId, RefundCause};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = refunds)]
pub struct RefundRow {
    pub id: String,
    pub purchase_id: PurchaseId,
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

pub fn refund_for(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
) -> Result<Option<RefundRow>, DbError> {
    Ok(refund_for_query(purchase_id).first(conn).optional()?)
}

/// [`refund_for`]'s query (its plan is checked by a test).
pub fn refund_for_query(
    purchase_id: &PurchaseId,
) -> refunds::BoxedQuery<'static, DbBackend, SelectOf<RefundRow>> {
    refunds::table
        .filter(refunds::purchase_id.eq(purchase_id.clone()))
        .select(RefundRow::as_select())
        .into_boxed()
}

/// The refund row of eSIM `unit`, created (status `pending`, with its idempotency key) if
/// missing: the key is stored before the provider is ever asked, so a retried refund cannot
/// pay twice. A refund gives back what the eSIM charged ([`UnitTax::charged`]: its price,
/// with any tax added on top), decided here for every cause.
///
/// [`UnitTax::charged`]: crate::domain::tax::UnitTax::charged
pub fn ensure_refund(
    conn: &mut DbConn,
    unit: &Purchase,
    reason: &str,
    cause: RefundCause,
    keeps_cost: bool,
    now_ms: i64,
) -> Result<RefundRow, DbError> {
    let purchase_id = &unit.id;
    let amount = crate::db::tax::unit_tax(conn, purchase_id)?.charged(unit.price_cents);
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(refunds::table)
            .values((
                refunds::id.eq(format!("rf_{purchase_id}")),
                refunds::purchase_id.eq(purchase_id),
                refunds::amount_cents.eq(amount),
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
    crate::db::purchases::money_changed(conn, purchase_id)?;
    refund_for(conn, purchase_id)?.ok_or(DbError::Query(diesel::result::Error::NotFound))
}

pub fn set_refund_status(
    conn: &mut DbConn,
    refund_id: &str,
    status: &str,
    provider_refund_id: Option<&str>,
    now_ms: i64,
) -> Result<(), DbError> {
    let purchase_id: Option<PurchaseId> = diesel::update(refunds::table.find(refund_id))
        .set((
            refunds::status.eq(status),
            refunds::provider_refund_id.eq(provider_refund_id),
            refunds::updated_at_ms.eq(now_ms),
        ))
        .returning(refunds::purchase_id)
        .get_result(conn)
        .optional()?;
    if let Some(purchase_id) = purchase_id {
        crate::db::purchases::money_changed(conn, &purchase_id)?;
    }
    Ok(())
}
