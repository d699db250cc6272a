//! The local copy of the supplier's listings (`supplier_orders`, `supplier_transactions`) and
//! its refresh state (`supplier_history_sync`). Written by `crate::books::history`; read by the
//! reconciliation a period at a time, by the `created_at_ms` and `reference` indexes and the
//! primary keys, never whole.

use diesel::prelude::*;

use crate::db::schema::{supplier_history_sync, supplier_orders, supplier_transactions};
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = supplier_orders)]
#[diesel(treat_none_as_null = true)]
pub struct OrderRow {
    pub id: String,
    pub reference: String,
    pub status: String,
    pub price_cents: i64,
    pub currency: String,
    pub created_at: String,
    pub created_at_ms: Option<i64>,
    pub esim_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = supplier_transactions)]
pub struct TransactionRow {
    pub id: i64,
    pub kind: String,
    pub available_delta_cents: i64,
    pub reserved_delta_cents: i64,
    pub reference: String,
    pub created_at: String,
    pub created_at_ms: Option<i64>,
}

/// Stores `rows` (insert, or update a changed one) and returns how many were new or changed;
/// the days of the books they touch are marked (`book_days`). Call inside a write transaction.
pub fn upsert_orders(conn: &mut DbConn, rows: &[OrderRow]) -> Result<usize, DbError> {
    let mut changed = Vec::new();
    let mut count = 0;
    for row in rows {
        let stored: Option<OrderRow> = supplier_orders::table
            .find(&row.id)
            .select(OrderRow::as_select())
            .first(conn)
            .optional()?;
        match stored {
            Some(old) if old == *row => continue,
            Some(old) => {
                diesel::update(supplier_orders::table.find(&row.id))
                    .set(row)
                    .execute(conn)?;
                changed.push((old.id, old.reference, old.created_at_ms));
            }
            None => {
                diesel::insert_into(supplier_orders::table)
                    .values(row)
                    .execute(conn)?;
            }
        }
        changed.push((row.id.clone(), row.reference.clone(), row.created_at_ms));
        count += 1;
    }
    // The books of the days these orders are on are made again.
    crate::db::book_days::supplier_orders_changed(conn, &changed)?;
    Ok(count)
}

/// Stores the transactions of `rows` not stored yet (a transaction never changes) and returns
/// how many were new; the days of the books they touch are marked (`book_days`). Call inside a
/// write transaction.
pub fn insert_new_transactions(
    conn: &mut DbConn,
    rows: &[TransactionRow],
) -> Result<usize, DbError> {
    let mut added = Vec::new();
    for row in rows {
        let known = supplier_transactions::table
            .find(row.id)
            .select(supplier_transactions::id)
            .first::<i64>(conn)
            .optional()?
            .is_some();
        if !known {
            diesel::insert_into(supplier_transactions::table)
                .values(row)
                .execute(conn)?;
            added.push((row.reference.clone(), row.kind.clone(), row.created_at_ms));
        }
    }
    crate::db::book_days::supplier_transactions_changed(conn, &added)?;
    Ok(added.len())
}

/// How many of the newest stored items the refresh takes as its anchor at most.
const ANCHOR_LIMIT: i64 = 1000;

/// The stored orders with the newest time: the refresh's anchor. Upstream times may be shared
/// by several orders (they are given to the second), and the listing order among them is not
/// known, so all of them are the anchor, not one picked by id.
pub fn newest_orders(conn: &mut DbConn) -> Result<Vec<String>, DbError> {
    let newest: Option<i64> = supplier_orders::table
        .filter(supplier_orders::created_at_ms.is_not_null())
        .select(diesel::dsl::max(supplier_orders::created_at_ms))
        .first::<Option<i64>>(conn)?;
    let Some(newest) = newest else {
        return Ok(Vec::new());
    };
    Ok(supplier_orders::table
        .filter(supplier_orders::created_at_ms.eq(newest))
        .select(supplier_orders::id)
        .limit(ANCHOR_LIMIT)
        .load(conn)?)
}

/// The stored transactions with the newest time: the refresh's anchor (see [`newest_orders`]).
pub fn newest_transactions(conn: &mut DbConn) -> Result<Vec<i64>, DbError> {
    let newest: Option<i64> = supplier_transactions::table
        .filter(supplier_transactions::created_at_ms.is_not_null())
        .select(diesel::dsl::max(supplier_transactions::created_at_ms))
        .first::<Option<i64>>(conn)?;
    let Some(newest) = newest else {
        return Ok(Vec::new());
    };
    Ok(supplier_transactions::table
        .filter(supplier_transactions::created_at_ms.eq(newest))
        .select(supplier_transactions::id)
        .limit(ANCHOR_LIMIT)
        .load(conn)?)
}

/// Orders whose time is in `[from_ms, until_ms)` or cannot be read.
pub fn orders_in(conn: &mut DbConn, from_ms: i64, until_ms: i64) -> Result<Vec<OrderRow>, DbError> {
    let mut rows: Vec<OrderRow> = supplier_orders::table
        .filter(supplier_orders::created_at_ms.ge(from_ms))
        .filter(supplier_orders::created_at_ms.lt(until_ms))
        .select(OrderRow::as_select())
        .load(conn)?;
    rows.extend(
        supplier_orders::table
            .filter(supplier_orders::created_at_ms.is_null())
            .select(OrderRow::as_select())
            .load::<OrderRow>(conn)?,
    );
    Ok(rows)
}

/// Orders whose id or reference is one of `handles`, but for those whose id is in `loaded`
/// (the caller has them): ids by the primary key and the reference index, then only the new
/// orders read whole.
pub fn orders_named(
    conn: &mut DbConn,
    handles: &[String],
    loaded: &std::collections::HashSet<String>,
) -> Result<Vec<OrderRow>, DbError> {
    let mut wanted = std::collections::BTreeSet::new();
    for chunk in handles.chunks(500) {
        // An id names one order: one already loaded needs no read.
        let ids: Vec<&String> = chunk.iter().filter(|h| !loaded.contains(*h)).collect();
        let by_id: Vec<String> = supplier_orders::table
            .filter(supplier_orders::id.eq_any(ids))
            .select(supplier_orders::id)
            .load(conn)?;
        // A reference may name several (upstream's duplicates): every one is asked for, by
        // id first, so only the orders not loaded yet are read whole.
        let by_reference: Vec<String> = supplier_orders::table
            .filter(supplier_orders::reference.eq_any(chunk))
            .select(supplier_orders::id)
            .load(conn)?;
        wanted.extend(
            by_id
                .into_iter()
                .chain(by_reference)
                .filter(|id| !loaded.contains(id)),
        );
    }
    let wanted: Vec<String> = wanted.into_iter().collect();
    let mut rows = Vec::new();
    for chunk in wanted.chunks(500) {
        rows.extend(
            supplier_orders::table
                .filter(supplier_orders::id.eq_any(chunk))
                .select(OrderRow::as_select())
                .load::<OrderRow>(conn)?,
        );
    }
    Ok(rows)
}

/// An order with `reference` (upstream should hold one at most), by the reference index.
pub fn order_with_reference(
    conn: &mut DbConn,
    reference: &str,
) -> Result<Option<OrderRow>, DbError> {
    Ok(supplier_orders::table
        .filter(supplier_orders::reference.eq(reference))
        .select(OrderRow::as_select())
        .first(conn)
        .optional()?)
}

/// Transactions whose time is in `[from_ms, until_ms)` or cannot be read.
pub fn transactions_in(
    conn: &mut DbConn,
    from_ms: i64,
    until_ms: i64,
) -> Result<Vec<TransactionRow>, DbError> {
    let mut rows: Vec<TransactionRow> = supplier_transactions::table
        .filter(supplier_transactions::created_at_ms.ge(from_ms))
        .filter(supplier_transactions::created_at_ms.lt(until_ms))
        .select(TransactionRow::as_select())
        .load(conn)?;
    rows.extend(
        supplier_transactions::table
            .filter(supplier_transactions::created_at_ms.is_null())
            .select(TransactionRow::as_select())
            .load::<TransactionRow>(conn)?,
    );
    Ok(rows)
}

/// Where a page of [`transactions_page`] ended: the last row's time (`None` for the rows whose
/// time cannot be read, which come last) and id.
pub type TransactionCursor = (Option<i64>, i64);

/// Up to `limit` transactions after `after`, oldest first: by time, then id, by the
/// `(created_at_ms, id)` index; those whose time cannot be read after all others, by id.
pub fn transactions_page(
    conn: &mut DbConn,
    after: Option<TransactionCursor>,
    limit: i64,
) -> Result<Vec<TransactionRow>, DbError> {
    use supplier_transactions::dsl as t;
    let mut rows: Vec<TransactionRow> = Vec::new();
    let untimed_after = match after {
        Some((None, id)) => Some(id),
        timed => {
            let query = t::supplier_transactions
                .filter(t::created_at_ms.is_not_null())
                .order((t::created_at_ms, t::id))
                .select(TransactionRow::as_select())
                .limit(limit);
            rows = match timed {
                Some((Some(at), id)) => query
                    // `(created_at_ms, id) > (at, id)`, written with a range on the
                    // index's first column so both backends seek to it.
                    .filter(t::created_at_ms.ge(at))
                    .filter(t::created_at_ms.gt(at).or(t::id.gt(id)))
                    .load(conn)?,
                _ => query.load(conn)?,
            };
            None
        }
    };
    let left = limit.saturating_sub(i64::try_from(rows.len()).unwrap_or(limit));
    if left > 0 {
        let query = t::supplier_transactions
            .filter(t::created_at_ms.is_null())
            .order(t::id)
            .select(TransactionRow::as_select())
            .limit(left);
        rows.extend(match untimed_after {
            Some(id) => query.filter(t::id.gt(id)).load::<TransactionRow>(conn)?,
            None => query.load::<TransactionRow>(conn)?,
        });
    }
    Ok(rows)
}

/// Transactions whose reference is one of `references`, but for those whose id is in `loaded`
/// (the caller has them): ids by the reference index first, then only the new transactions
/// read whole.
pub fn transactions_for(
    conn: &mut DbConn,
    references: &[String],
    loaded: &std::collections::HashSet<i64>,
) -> Result<Vec<TransactionRow>, DbError> {
    let mut wanted = std::collections::BTreeSet::new();
    for chunk in references.chunks(500) {
        let ids: Vec<i64> = supplier_transactions::table
            .filter(supplier_transactions::reference.eq_any(chunk))
            .select(supplier_transactions::id)
            .load(conn)?;
        wanted.extend(ids.into_iter().filter(|id| !loaded.contains(id)));
    }
    let wanted: Vec<i64> = wanted.into_iter().collect();
    let mut rows = Vec::new();
    for chunk in wanted.chunks(500) {
        rows.extend(
            supplier_transactions::table
                .filter(supplier_transactions::id.eq_any(chunk))
                .select(TransactionRow::as_select())
                .load::<TransactionRow>(conn)?,
        );
    }
    Ok(rows)
}

/// `(refreshed_at_ms, full_pass_at_ms)` of `list`, if it was ever refreshed.
pub fn sync_state(conn: &mut DbConn, list: &str) -> Result<Option<(i64, i64)>, DbError> {
    Ok(supplier_history_sync::table
        .find(list)
        .select((
            supplier_history_sync::refreshed_at_ms,
            supplier_history_sync::full_pass_at_ms,
        ))
        .first(conn)
        .optional()?)
}

/// Records a refresh of `list` at `now_ms` (a full pass when `full`). Call inside a write
/// transaction.
pub fn mark_refreshed(
    conn: &mut DbConn,
    list: &str,
    now_ms: i64,
    full: bool,
) -> Result<(), DbError> {
    match sync_state(conn, list)? {
        Some((_, last_full)) => {
            diesel::update(supplier_history_sync::table.find(list))
                .set((
                    supplier_history_sync::refreshed_at_ms.eq(now_ms),
                    supplier_history_sync::full_pass_at_ms.eq(if full {
                        now_ms
                    } else {
                        last_full
                    }),
                ))
                .execute(conn)?;
        }
        None => {
            diesel::insert_into(supplier_history_sync::table)
                .values((
                    supplier_history_sync::list.eq(list),
                    supplier_history_sync::refreshed_at_ms.eq(now_ms),
                    supplier_history_sync::full_pass_at_ms.eq(if full { now_ms } else { 0 }),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}
