//! The owner's explanations of mismatches in the books (`book_explanations`), keyed by the
//! reconciliation line's stable key. Written by `crate::books::Books::explain` in the same
//! transaction as its audit entry.

use std::collections::HashMap;

use diesel::prelude::*;

use crate::db::schema::book_explanations;
use crate::db::{DbConn, DbError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = book_explanations)]
pub struct ExplanationRow {
    pub line_key: String,
    pub note: String,
    pub explained_by: String,
    pub explained_at_ms: i64,
}

/// Every explanation, by line key. Explanations are written by hand, one per mismatch the
/// owner looked into, so the table stays small.
pub fn all(conn: &mut DbConn) -> Result<HashMap<String, ExplanationRow>, DbError> {
    let rows: Vec<ExplanationRow> = book_explanations::table
        .select(ExplanationRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(|r| (r.line_key.clone(), r)).collect())
}

/// The explanation of `line_key`, if any.
pub fn find(conn: &mut DbConn, line_key: &str) -> Result<Option<ExplanationRow>, DbError> {
    Ok(book_explanations::table
        .find(line_key)
        .select(ExplanationRow::as_select())
        .first(conn)
        .optional()?)
}

/// Stores `row`, replacing an earlier explanation of the same line. Call inside a write
/// transaction.
pub fn put(conn: &mut DbConn, row: &ExplanationRow) -> Result<(), DbError> {
    diesel::delete(book_explanations::table.find(&row.line_key)).execute(conn)?;
    diesel::insert_into(book_explanations::table)
        .values((
            book_explanations::line_key.eq(&row.line_key),
            book_explanations::note.eq(&row.note),
            book_explanations::explained_by.eq(&row.explained_by),
            book_explanations::explained_at_ms.eq(row.explained_at_ms),
        ))
        .execute(conn)?;
    Ok(())
}
