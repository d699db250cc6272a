//! The admin's markup rules (`markup_rules`): one per scope. The catalog snapshot reads them
//! through `db::catalog`; the console writes them here, each change with an audit entry.

use diesel::prelude::*;

use crate::db::schema::{markup_rules, shop_settings};
use crate::db::{DbConn, DbError};

/// `shop_settings` name of the pricing version: raised by every rule change, so each replica
/// notices a change made on another and rebuilds its snapshot.
pub const VERSION: &str = "pricing_version";

/// The current pricing version (0 before the first change).
pub fn version(conn: &mut DbConn) -> Result<i64, DbError> {
    Ok(shop_settings::table
        .find(VERSION)
        .select(shop_settings::value)
        .first(conn)
        .optional()?
        .unwrap_or(0))
}

/// Raises the pricing version, in the caller's transaction (markup rules and display rates).
pub(crate) fn bump_version(conn: &mut DbConn, now_ms: i64) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(shop_settings::table)
            .values((
                shop_settings::name.eq(VERSION),
                shop_settings::value.eq(1_i64),
                shop_settings::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(shop_settings::name)
            .do_update()
            .set((
                shop_settings::value.eq(shop_settings::value + 1_i64),
                shop_settings::updated_at_ms.eq(now_ms),
            ))
            .execute(c)
    })?;
    crate::db::announce_catalog_change(conn)
}

/// A stored markup rule, as written; `catalog::pricing::rule_from_row` makes it a rule.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct RuleRow {
    pub id: i64,
    pub scope_kind: String,
    pub scope_value: String,
    pub markup_bps: i64,
    pub fixed_cents: i64,
    pub price_ending: Option<i64>,
    pub min_margin_cents: i64,
    pub updated_at_ms: i64,
}

pub fn rules(conn: &mut DbConn) -> Result<Vec<RuleRow>, DbError> {
    Ok(markup_rules::table
        .order((markup_rules::scope_kind, markup_rules::scope_value))
        .load(conn)?)
}

pub fn find(conn: &mut DbConn, kind: &str, value: &str) -> Result<Option<RuleRow>, DbError> {
    Ok(markup_rules::table
        .filter(markup_rules::scope_kind.eq(kind))
        .filter(markup_rules::scope_value.eq(value))
        .first(conn)
        .optional()?)
}

/// The values a rule is saved with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleValues<'a> {
    pub scope_kind: &'a str,
    pub scope_value: &'a str,
    pub markup_bps: i64,
    pub fixed_cents: i64,
    pub price_ending: Option<i64>,
    pub min_margin_cents: i64,
}

/// Creates or replaces the rule for its scope, in the caller's write transaction.
pub fn save(conn: &mut DbConn, rule: RuleValues<'_>, now_ms: i64) -> Result<(), DbError> {
    if find(conn, rule.scope_kind, rule.scope_value)?.is_some() {
        diesel::update(
            markup_rules::table
                .filter(markup_rules::scope_kind.eq(rule.scope_kind))
                .filter(markup_rules::scope_value.eq(rule.scope_value)),
        )
        .set((
            markup_rules::markup_bps.eq(rule.markup_bps),
            markup_rules::fixed_cents.eq(rule.fixed_cents),
            markup_rules::price_ending.eq(rule.price_ending),
            markup_rules::min_margin_cents.eq(rule.min_margin_cents),
            markup_rules::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    } else {
        diesel::insert_into(markup_rules::table)
            .values((
                markup_rules::scope_kind.eq(rule.scope_kind),
                markup_rules::scope_value.eq(rule.scope_value),
                markup_rules::markup_bps.eq(rule.markup_bps),
                markup_rules::fixed_cents.eq(rule.fixed_cents),
                markup_rules::price_ending.eq(rule.price_ending),
                markup_rules::min_margin_cents.eq(rule.min_margin_cents),
                markup_rules::updated_at_ms.eq(now_ms),
            ))
            .execute(conn)?;
    }
    bump_version(conn, now_ms)
}

/// Deletes the rule for a scope, in the caller's write transaction; returns whether one
/// existed.
pub fn delete(conn: &mut DbConn, kind: &str, value: &str, now_ms: i64) -> Result<bool, DbError> {
    let deleted = diesel::delete(
        markup_rules::table
            .filter(markup_rules::scope_kind.eq(kind))
            .filter(markup_rules::scope_value.eq(value)),
    )
    .execute(conn)?
        > 0;
    if deleted {
        bump_version(conn, now_ms)?;
    }
    Ok(deleted)
}
