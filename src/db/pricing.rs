//! The admin's markup rules (`markup_rules`): one per scope. The catalog snapshot reads them
//! through `catalog::store`; the console writes them here, each change with an audit entry.

use diesel::prelude::*;

use crate::catalog::store::RuleRow;
use crate::db::schema::markup_rules;
use crate::db::{DbConn, DbError};

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
    Ok(())
}

/// Deletes the rule for a scope; returns whether one existed.
pub fn delete(conn: &mut DbConn, kind: &str, value: &str) -> Result<bool, DbError> {
    Ok(diesel::delete(
        markup_rules::table
            .filter(markup_rules::scope_kind.eq(kind))
            .filter(markup_rules::scope_value.eq(value)),
    )
    .execute(conn)?
        > 0)
}
