//! Promotion codes (`promo_codes`) and each purchase's use of one (`promo_redemptions`).
//!
//! A checkout reserves one use in its admission transaction, after locking the code's row;
//! a reservation counts against the code's total cap while it runs and its purchase awaits
//! payment (the cap per email counts verified uses only). The verified count,
//! `promo_codes.used_count`, is raised only by [`mark_used`], in the transaction that records
//! the verified payment, and only for a reservation not used before: exactly once.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use crate::db::schema::{promo_codes, promo_redemptions};
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = promo_codes)]
pub struct CodeRow {
    pub code: String,
    pub kind: String,
    pub value: i64,
    pub starts_at_ms: i64,
    pub ends_at_ms: Option<i64>,
    pub max_uses: Option<i64>,
    pub max_uses_per_email: Option<i64>,
    pub scope_kind: String,
    pub scope_value: String,
    pub used_count: i64,
    pub disabled_at_ms: Option<i64>,
    pub created_at_ms: i64,
    pub created_by: String,
}

/// Inserts a code; false when the code exists already (nothing changed).
pub fn insert(conn: &mut DbConn, row: &CodeRow) -> Result<bool, DbError> {
    let inserted = crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(promo_codes::table)
            .values(row)
            .on_conflict_do_nothing()
            .execute(c)
    })?;
    Ok(inserted == 1)
}

pub fn find(conn: &mut DbConn, code: &str) -> Result<Option<CodeRow>, DbError> {
    Ok(promo_codes::table
        .find(code)
        .select(CodeRow::as_select())
        .first(conn)
        .optional()?)
}

/// Every code, newest first.
pub fn list(conn: &mut DbConn) -> Result<Vec<CodeRow>, DbError> {
    Ok(promo_codes::table
        .select(CodeRow::as_select())
        .order((promo_codes::created_at_ms.desc(), promo_codes::code))
        .load(conn)?)
}

/// Disables a code from `now_ms` on; false when it is unknown or already disabled.
pub fn disable(conn: &mut DbConn, code: &str, now_ms: i64) -> Result<bool, DbError> {
    Ok(diesel::update(
        promo_codes::table
            .filter(promo_codes::code.eq(code))
            .filter(promo_codes::disabled_at_ms.is_null()),
    )
    .set(promo_codes::disabled_at_ms.eq(now_ms))
    .execute(conn)?
        == 1)
}

/// Sets a code's end (exclusive, Unix ms) and caps; false when the code is unknown.
pub fn set_limits(
    conn: &mut DbConn,
    code: &str,
    ends_at_ms: Option<i64>,
    max_uses: Option<i64>,
    max_uses_per_email: Option<i64>,
) -> Result<bool, DbError> {
    Ok(
        diesel::update(promo_codes::table.filter(promo_codes::code.eq(code)))
            .set((
                promo_codes::ends_at_ms.eq(ends_at_ms),
                promo_codes::max_uses.eq(max_uses),
                promo_codes::max_uses_per_email.eq(max_uses_per_email),
            ))
            .execute(conn)?
            == 1,
    )
}

/// Enables a disabled code again; false when it is unknown or enabled.
pub fn enable(conn: &mut DbConn, code: &str) -> Result<bool, DbError> {
    Ok(diesel::update(
        promo_codes::table
            .filter(promo_codes::code.eq(code))
            .filter(promo_codes::disabled_at_ms.is_not_null()),
    )
    .set(promo_codes::disabled_at_ms.eq(None::<i64>))
    .execute(conn)?
        == 1)
}

/// Locks the code's row until the caller's transaction ends (PostgreSQL; SQLite's write
/// transaction already holds the one write lock), so checkouts on every replica count the
/// code's uses one after another.
pub fn lock(conn: &mut DbConn, code: &str) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query("SELECT code FROM promo_codes WHERE code = $1 FOR UPDATE")
            .bind::<Text, _>(code)
            .execute(pg)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Reservations of `code` still running at `now_ms` (their purchase awaits payment), one per
/// unit; or, when `client_key` is given, the checkouts from that client
/// (`checkout_holds.client_key`, held on a checkout's first unit) holding such reservations.
pub fn running_reservations(
    conn: &mut DbConn,
    code: &str,
    client_key: Option<&str>,
    now_ms: i64,
) -> Result<i64, DbError> {
    let (counted, by_client) = if client_key.is_some() {
        (
            "COUNT(DISTINCT p.checkout_id)",
            " AND EXISTS (SELECT 1 FROM checkout_holds h \
               WHERE h.purchase_id = p.checkout_id AND h.client_key = $3)",
        )
    } else {
        ("COUNT(*)", "")
    };
    let query = diesel::sql_query(format!(
        "SELECT CAST({counted} AS BIGINT) AS n \
         FROM promo_redemptions r JOIN purchases p ON p.id = r.purchase_id \
         WHERE r.code = $1 AND r.state = 'reserved' AND r.reserved_until_ms > $2 \
         AND p.status = 'awaiting_payment'{by_client}"
    ))
    .bind::<Text, _>(code)
    .bind::<BigInt, _>(now_ms);
    let rows: Vec<Count> = match client_key {
        Some(client) => query.bind::<Text, _>(client).load(conn)?,
        None => query.load(conn)?,
    };
    Ok(rows.first().map_or(0, |r| r.n))
}

/// Verified uses of `code` by one email.
pub fn used_by_email(conn: &mut DbConn, code: &str, email_key: &str) -> Result<i64, DbError> {
    Ok(promo_redemptions::table
        .filter(promo_redemptions::code.eq(code))
        .filter(promo_redemptions::email_key.eq(email_key))
        .filter(promo_redemptions::state.eq("used"))
        .count()
        .get_result(conn)?)
}

#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = promo_redemptions)]
pub struct NewRedemption {
    pub purchase_id: PurchaseId,
    pub code: String,
    pub email_key: String,
    pub state: String,
    pub reserved_until_ms: i64,
    pub created_at_ms: i64,
}

pub fn reserve(conn: &mut DbConn, row: &NewRedemption) -> Result<(), DbError> {
    diesel::insert_into(promo_redemptions::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

/// A use counted by [`mark_used`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    pub code: String,
    /// Verified uses, this one included.
    pub used_count: i64,
    pub max_uses: Option<i64>,
}

impl Counted {
    /// More verified uses than the cap: a payment arrived after its reservation had ended and
    /// the use was taken by someone else meanwhile.
    pub fn beyond_cap(&self) -> bool {
        self.max_uses.is_some_and(|cap| self.used_count > cap)
    }
}

/// Counts the purchase's use of its code, in the caller's transaction (the one recording the
/// verified payment): the reservation becomes `used` and the code's `used_count` rises by one.
/// `None` when the purchase has no code or its use was counted already.
pub fn mark_used(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    now_ms: i64,
) -> Result<Option<Counted>, DbError> {
    let Some(code) = promo_redemptions::table
        .find(purchase_id)
        .select(promo_redemptions::code)
        .first::<String>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let changed = diesel::update(
        promo_redemptions::table
            .filter(promo_redemptions::purchase_id.eq(purchase_id))
            .filter(promo_redemptions::state.eq("reserved")),
    )
    .set((
        promo_redemptions::state.eq("used"),
        promo_redemptions::used_at_ms.eq(now_ms),
    ))
    .execute(conn)?;
    if changed != 1 {
        return Ok(None);
    }
    diesel::update(promo_codes::table.find(&code))
        .set(promo_codes::used_count.eq(promo_codes::used_count + 1_i64))
        .execute(conn)?;
    let (used_count, max_uses) = promo_codes::table
        .find(&code)
        .select((promo_codes::used_count, promo_codes::max_uses))
        .first::<(i64, Option<i64>)>(conn)?;
    Ok(Some(Counted {
        code,
        used_count,
        max_uses,
    }))
}
