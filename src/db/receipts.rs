//! Receipts, their lines, credit notes and the counters that number them. Rows are written
//! once and never updated: a document reads the same every time it is opened.
//!
//! A number is taken by raising its series' counter row in the caller's transaction
//! ([`next_number`]), so a rollback gives the number back and no two transactions get the
//! same one. The row is the hottest in the database while payments arrive: callers take the
//! number as the last write of their transaction, after every other row they lock, so it is
//! held only for the inserts that follow and no lock order can close a cycle through it.

use diesel::prelude::*;

use crate::db::schema::{credit_notes, document_counters, receipt_lines, receipts, refunds};
use crate::db::{DbConn, DbError};
use crate::domain::purchase::PurchaseId;
use crate::domain::receipt::Series;

/// A receipt as issued.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = receipts)]
pub struct ReceiptRow {
    /// The checkout's id.
    pub id: String,
    pub number: i64,
    pub issued_at_ms: i64,
    pub seller_name: String,
    pub seller_legal_name: String,
    /// Lines separated by `\n`.
    pub seller_address: String,
    pub seller_registration: String,
    pub seller_contact: String,
    pub customer_email: String,
    pub billing_name: Option<String>,
    pub billing_country: Option<String>,
    pub currency: String,
    pub total_cents: i64,
    pub payment_method: String,
    pub language: String,
}

/// One line of a receipt.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = receipt_lines)]
pub struct ReceiptLineRow {
    pub receipt_id: String,
    pub line_no: i32,
    /// `item` or `tax` (`domain::receipt::LineKind`).
    pub kind: String,
    pub description: String,
    pub quantity: i32,
    pub unit_price_cents: i64,
    pub discount_cents: i64,
    pub amount_cents: i64,
    pub tax_rate_bps: Option<i32>,
    pub tax_jurisdiction: Option<String>,
}

/// A credit note as issued.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_notes)]
pub struct CreditNoteRow {
    /// The refund row's id.
    pub id: String,
    pub number: i64,
    pub receipt_id: String,
    pub issued_at_ms: i64,
    pub amount_cents: i64,
    pub currency: String,
    /// What was credited, in the receipt's language.
    pub description: String,
}

/// The next number of `series`, in the caller's transaction (see the module's note on
/// taking it last).
pub fn next_number(conn: &mut DbConn, series: Series) -> Result<i64, DbError> {
    Ok(
        diesel::update(document_counters::table.find(series.as_str()))
            .set(document_counters::last_number.eq(document_counters::last_number + 1))
            .returning(document_counters::last_number)
            .get_result(conn)?,
    )
}

/// Stores an issued receipt and its lines, in the caller's transaction.
pub fn insert_receipt(
    conn: &mut DbConn,
    receipt: &ReceiptRow,
    lines: &[ReceiptLineRow],
) -> Result<(), DbError> {
    diesel::insert_into(receipts::table)
        .values(receipt)
        .execute(conn)?;
    for line in lines {
        diesel::insert_into(receipt_lines::table)
            .values(line)
            .execute(conn)?;
    }
    Ok(())
}

/// The receipt of checkout `checkout_id`, if one was issued.
pub fn receipt_of(conn: &mut DbConn, checkout_id: &str) -> Result<Option<ReceiptRow>, DbError> {
    Ok(receipts::table
        .find(checkout_id)
        .select(ReceiptRow::as_select())
        .first(conn)
        .optional()?)
}

/// A receipt's lines in order.
pub fn lines_of(conn: &mut DbConn, receipt_id: &str) -> Result<Vec<ReceiptLineRow>, DbError> {
    Ok(receipt_lines::table
        .filter(receipt_lines::receipt_id.eq(receipt_id))
        .order(receipt_lines::line_no)
        .select(ReceiptLineRow::as_select())
        .load(conn)?)
}

/// Stores an issued credit note, in the caller's transaction.
pub fn insert_credit_note(conn: &mut DbConn, note: &CreditNoteRow) -> Result<(), DbError> {
    diesel::insert_into(credit_notes::table)
        .values(note)
        .execute(conn)?;
    Ok(())
}

/// The credit note of refund `refund_id`, if one was issued.
pub fn credit_note_for_refund(
    conn: &mut DbConn,
    refund_id: &str,
) -> Result<Option<CreditNoteRow>, DbError> {
    Ok(credit_notes::table
        .find(refund_id)
        .select(CreditNoteRow::as_select())
        .first(conn)
        .optional()?)
}

/// The credit notes against receipt `receipt_id`, oldest first.
pub fn credit_notes_of(conn: &mut DbConn, receipt_id: &str) -> Result<Vec<CreditNoteRow>, DbError> {
    Ok(credit_notes::table
        .filter(credit_notes::receipt_id.eq(receipt_id))
        .order(credit_notes::number)
        .select(CreditNoteRow::as_select())
        .load(conn)?)
}

/// The purchase and amount of refund `refund_id`: what its credit note credits.
pub fn refund_of(conn: &mut DbConn, refund_id: &str) -> Result<Option<(PurchaseId, i64)>, DbError> {
    Ok(refunds::table
        .find(refund_id)
        .select((refunds::purchase_id, refunds::amount_cents))
        .first(conn)
        .optional()?)
}
