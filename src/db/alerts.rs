//! Alerts for the owners: raised once while open (per kind, per purchase or shop-wide),
//! resolved by an owner or by the condition ending.

use diesel::prelude::*;

use crate::db::schema::alerts;
use crate::db::{DbBackend, DbConn, DbError, SelectOf};
use crate::domain::AlertKind;
use crate::domain::purchase::PurchaseId;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = alerts)]
pub struct Alert {
    pub id: i64,
    pub kind: String,
    pub purchase_id: Option<PurchaseId>,
    pub message: String,
    pub created_at_ms: i64,
    pub resolved_at_ms: Option<i64>,
}

/// Raises an alert unless one of the same kind for the same purchase (or the same kind
/// without a purchase) is still open. Returns whether a row was inserted.
pub fn raise_alert(
    conn: &mut DbConn,
    kind: AlertKind,
    purchase_id: Option<&PurchaseId>,
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
    purchase_id: &PurchaseId,
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
    Ok(open_alerts_query().load(conn)?)
}

/// [`open_alerts`]'s query (its plan is checked by a test).
pub fn open_alerts_query() -> alerts::BoxedQuery<'static, DbBackend, SelectOf<Alert>> {
    alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .order(alerts::id)
        .select(Alert::as_select())
        .into_boxed()
}

/// The newest `limit` open alerts, newest first, and how many are open in all.
pub fn newest_open_alerts(conn: &mut DbConn, limit: i64) -> Result<Vec<Alert>, DbError> {
    Ok(newest_open_alerts_query(limit).load(conn)?)
}

/// [`newest_open_alerts`]' list (its plan is checked by a test): read backwards along
/// `alerts_open`.
pub fn newest_open_alerts_query(
    limit: i64,
) -> alerts::BoxedQuery<'static, DbBackend, SelectOf<Alert>> {
    alerts::table
        .filter(alerts::resolved_at_ms.is_null())
        .order(alerts::id.desc())
        .limit(limit)
        .select(Alert::as_select())
        .into_boxed()
}

pub fn alerts_for_purchase(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
) -> Result<Vec<Alert>, DbError> {
    Ok(alerts_for_purchase_query(purchase_id).load(conn)?)
}

/// [`alerts_for_purchase`]'s query (its plan is checked by a test).
pub fn alerts_for_purchase_query(
    purchase_id: &PurchaseId,
) -> alerts::BoxedQuery<'static, DbBackend, SelectOf<Alert>> {
    alerts::table
        .filter(alerts::purchase_id.eq(purchase_id.clone()))
        .order(alerts::id)
        .select(Alert::as_select())
        .into_boxed()
}

/// Resolves the purchase's open alerts; returns how many.
pub fn resolve_alerts(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    now_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::update(
        alerts::table
            .filter(alerts::purchase_id.eq(purchase_id))
            .filter(alerts::resolved_at_ms.is_null()),
    )
    .set(alerts::resolved_at_ms.eq(now_ms))
    .execute(conn)?)
}

/// The open alert of `kind` that belongs to no purchase, if there is one.
pub fn open_shop_alert(conn: &mut DbConn, kind: AlertKind) -> Result<Option<i64>, DbError> {
    Ok(alerts::table
        .filter(alerts::kind.eq(kind.as_str()))
        .filter(alerts::purchase_id.is_null())
        .filter(alerts::resolved_at_ms.is_null())
        .order(alerts::id.desc())
        .select(alerts::id)
        .first(conn)
        .optional()?)
}

/// Resolves the open alerts of `kind` that belong to no purchase; returns how many.
pub fn resolve_shop_alerts(
    conn: &mut DbConn,
    kind: AlertKind,
    now_ms: i64,
) -> Result<usize, DbError> {
    Ok(diesel::update(
        alerts::table
            .filter(alerts::kind.eq(kind.as_str()))
            .filter(alerts::purchase_id.is_null())
            .filter(alerts::resolved_at_ms.is_null()),
    )
    .set(alerts::resolved_at_ms.eq(now_ms))
    .execute(conn)?)
}
