//! Tax: the owner's rate table (`tax_rates`), each taxed sale as recorded at payment
//! (`sale_taxes`, `sale_tax_lines`) with each eSIM's share of it (`unit_taxes`), and what
//! credit notes carry back (`credit_note_tax_lines`).
//! The mode is the `tax_mode` row of `shop_settings` (`domain::tax::MODE_SETTING`). Sales and
//! credit-note lines are written once, in the transaction that issues them, and never changed.

use diesel::prelude::*;

use std::collections::HashMap;

use crate::db::schema::{credit_note_tax_lines, sale_tax_lines, sale_taxes, tax_rates, unit_taxes};
use crate::db::{DbConn, DbError, settings};
use crate::domain::tax::{MODE_SETTING, TaxMode, UnitTax};
use crate::domain::{Cents, PurchaseId};

/// The owner's tax mode (off until set).
pub fn mode(conn: &mut DbConn) -> Result<TaxMode, DbError> {
    Ok(TaxMode::from_setting(settings::setting(
        conn,
        MODE_SETTING,
    )?))
}

/// Sets the tax mode, in the caller's transaction.
pub fn set_mode(conn: &mut DbConn, mode: TaxMode, now_ms: i64) -> Result<(), DbError> {
    settings::set_setting(conn, MODE_SETTING, mode.setting_value(), now_ms)
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = tax_rates)]
pub struct RateRow {
    pub country: String,
    pub rate_bps: i32,
    pub updated_at_ms: i64,
}

/// The rate table by country code.
pub fn rates(conn: &mut DbConn) -> Result<Vec<RateRow>, DbError> {
    Ok(tax_rates::table
        .select(RateRow::as_select())
        .order(tax_rates::country)
        .load(conn)?)
}

/// The rate kept for `country`, if any.
pub fn rate_of(conn: &mut DbConn, country: &str) -> Result<Option<RateRow>, DbError> {
    Ok(tax_rates::table
        .find(country)
        .select(RateRow::as_select())
        .first(conn)
        .optional()?)
}

/// Sets the rate of `country`, in the caller's transaction.
pub fn set_rate(
    conn: &mut DbConn,
    country: &str,
    rate_bps: i32,
    now_ms: i64,
) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(tax_rates::table)
            .values((
                tax_rates::country.eq(country),
                tax_rates::rate_bps.eq(rate_bps),
                tax_rates::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(tax_rates::country)
            .do_update()
            .set((
                tax_rates::rate_bps.eq(rate_bps),
                tax_rates::updated_at_ms.eq(now_ms),
            ))
            .execute(c)
    })?;
    Ok(())
}

/// Removes the rate of `country`; returns whether there was one.
pub fn remove_rate(conn: &mut DbConn, country: &str) -> Result<bool, DbError> {
    Ok(diesel::delete(tax_rates::table.find(country)).execute(conn)? > 0)
}

/// A taxed sale as recorded at payment.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = sale_taxes)]
pub struct SaleTaxRow {
    pub checkout_id: String,
    pub country: Option<String>,
    pub billing_country: Option<String>,
    pub client_country: Option<String>,
    /// `inclusive` or `exclusive` (`domain::tax::TaxMode`).
    pub mode: String,
    /// `provider` or `table`.
    pub source: String,
    pub net_cents: i64,
    pub tax_cents: i64,
    pub gross_cents: i64,
    pub paid_at_ms: i64,
}

/// One line of a sale's tax.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = sale_tax_lines)]
pub struct SaleTaxLineRow {
    pub checkout_id: String,
    pub line_no: i32,
    pub jurisdiction: Option<String>,
    pub rate_bps: Option<i32>,
    pub taxable_cents: i64,
    pub tax_cents: i64,
}

/// Records a taxed sale and its lines, in the caller's transaction.
pub fn insert_sale(
    conn: &mut DbConn,
    sale: &SaleTaxRow,
    lines: &[SaleTaxLineRow],
) -> Result<(), DbError> {
    diesel::insert_into(sale_taxes::table)
        .values(sale)
        .execute(conn)?;
    for line in lines {
        diesel::insert_into(sale_tax_lines::table)
            .values(line)
            .execute(conn)?;
    }
    Ok(())
}

/// Records eSIM `purchase_id`'s share of its sale's tax (written once, with the sale).
pub fn insert_unit_tax(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    tax: UnitTax,
) -> Result<(), DbError> {
    diesel::insert_into(unit_taxes::table)
        .values((
            unit_taxes::purchase_id.eq(purchase_id),
            unit_taxes::tax_cents.eq(tax.tax.get()),
            unit_taxes::tax_added_cents.eq(tax.added.get()),
        ))
        .execute(conn)?;
    Ok(())
}

/// eSIM `purchase_id`'s share of its sale's tax; zero when it was not taxed.
pub fn unit_tax(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<UnitTax, DbError> {
    Ok(unit_taxes::table
        .find(purchase_id)
        .select((unit_taxes::tax_cents, unit_taxes::tax_added_cents))
        .first::<(i64, i64)>(conn)
        .optional()?
        .map(unit_tax_of)
        .unwrap_or_default())
}

/// The shares of the taxed ones of `ids` (the others were not taxed), by key, 500 at a time.
pub fn unit_taxes_of(
    conn: &mut DbConn,
    ids: &[PurchaseId],
) -> Result<HashMap<PurchaseId, UnitTax>, DbError> {
    let mut out = HashMap::new();
    for chunk in ids.chunks(500) {
        let rows: Vec<(PurchaseId, i64, i64)> = unit_taxes::table
            .filter(unit_taxes::purchase_id.eq_any(chunk))
            .select((
                unit_taxes::purchase_id,
                unit_taxes::tax_cents,
                unit_taxes::tax_added_cents,
            ))
            .load(conn)?;
        out.extend(
            rows.into_iter()
                .map(|(id, tax, added)| (id, unit_tax_of((tax, added)))),
        );
    }
    Ok(out)
}

fn unit_tax_of((tax, added): (i64, i64)) -> UnitTax {
    UnitTax {
        tax: Cents::new(tax),
        added: Cents::new(added),
    }
}

/// The tax recorded for checkout `checkout_id`, if it was taxed.
pub fn sale_of(conn: &mut DbConn, checkout_id: &str) -> Result<Option<SaleTaxRow>, DbError> {
    Ok(sale_taxes::table
        .find(checkout_id)
        .select(SaleTaxRow::as_select())
        .first(conn)
        .optional()?)
}

/// The lines of checkout `checkout_id`'s tax, in order.
pub fn sale_lines_of(conn: &mut DbConn, checkout_id: &str) -> Result<Vec<SaleTaxLineRow>, DbError> {
    Ok(sale_tax_lines::table
        .filter(sale_tax_lines::checkout_id.eq(checkout_id))
        .order(sale_tax_lines::line_no)
        .select(SaleTaxLineRow::as_select())
        .load(conn)?)
}

/// The tax a credit note carries back, one line per line of the sale's tax.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_note_tax_lines)]
pub struct CreditNoteTaxLineRow {
    pub credit_note_id: String,
    pub line_no: i32,
    pub country: Option<String>,
    pub jurisdiction: Option<String>,
    pub rate_bps: Option<i32>,
    pub taxable_cents: i64,
    pub tax_cents: i64,
    pub issued_at_ms: i64,
}

/// Records a credit note's tax lines, in the caller's transaction.
pub fn insert_credit_note_lines(
    conn: &mut DbConn,
    lines: &[CreditNoteTaxLineRow],
) -> Result<(), DbError> {
    for line in lines {
        diesel::insert_into(credit_note_tax_lines::table)
            .values(line)
            .execute(conn)?;
    }
    Ok(())
}

/// The tax lines of credit notes `ids`, by note and line.
pub fn credit_note_lines_of(
    conn: &mut DbConn,
    ids: &[String],
) -> Result<Vec<CreditNoteTaxLineRow>, DbError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(credit_note_tax_lines::table
        .filter(credit_note_tax_lines::credit_note_id.eq_any(ids))
        .order((
            credit_note_tax_lines::credit_note_id,
            credit_note_tax_lines::line_no,
        ))
        .select(CreditNoteTaxLineRow::as_select())
        .load(conn)?)
}

/// Tax of one customer country and rate over a period: what was sold and what credit notes
/// carried back.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct TaxGroupRow {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    pub country: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Integer>)]
    pub rate_bps: Option<i32>,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub taxable_cents: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub tax_cents: i64,
}

/// The tax lines of sales paid in `[from_ms, to_ms)`, summed per customer country and rate
/// (the sale's paid time, by `sale_taxes_paid_at`; its lines by their key).
pub fn sold_by_country_rate(
    conn: &mut DbConn,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<TaxGroupRow>, DbError> {
    use diesel::sql_types::BigInt;
    Ok(diesel::sql_query(
        "SELECT sale_taxes.country AS country, sale_tax_lines.rate_bps AS rate_bps, \
         CAST(SUM(sale_tax_lines.taxable_cents) AS BIGINT) AS taxable_cents, \
         CAST(SUM(sale_tax_lines.tax_cents) AS BIGINT) AS tax_cents \
         FROM sale_taxes JOIN sale_tax_lines ON sale_tax_lines.checkout_id = sale_taxes.checkout_id \
         WHERE sale_taxes.paid_at_ms >= $1 AND sale_taxes.paid_at_ms < $2 \
         GROUP BY sale_taxes.country, sale_tax_lines.rate_bps ORDER BY sale_taxes.country, sale_tax_lines.rate_bps",
    )
    .bind::<BigInt, _>(from_ms)
    .bind::<BigInt, _>(to_ms)
    .load(conn)?)
}

/// The tax credit notes issued in `[from_ms, to_ms)` carried back, summed per customer
/// country and rate (by `credit_note_tax_lines_issued_at`).
pub fn credited_by_country_rate(
    conn: &mut DbConn,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<TaxGroupRow>, DbError> {
    use diesel::sql_types::BigInt;
    Ok(diesel::sql_query(
        "SELECT country, rate_bps, CAST(SUM(taxable_cents) AS BIGINT) AS taxable_cents, \
         CAST(SUM(tax_cents) AS BIGINT) AS tax_cents \
         FROM credit_note_tax_lines WHERE issued_at_ms >= $1 AND issued_at_ms < $2 \
         GROUP BY country, rate_bps ORDER BY country, rate_bps",
    )
    .bind::<BigInt, _>(from_ms)
    .bind::<BigInt, _>(to_ms)
    .load(conn)?)
}

/// Net, tax and gross of the taxed sales paid in `[from_ms, to_ms)`, and how many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, QueryableByName)]
pub struct TaxTotalsRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub sales: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub net_cents: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub tax_cents: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub gross_cents: i64,
}

pub fn totals(conn: &mut DbConn, from_ms: i64, to_ms: i64) -> Result<TaxTotalsRow, DbError> {
    use diesel::sql_types::BigInt;
    Ok(diesel::sql_query(
        "SELECT CAST(COUNT(*) AS BIGINT) AS sales, \
         CAST(COALESCE(SUM(net_cents), 0) AS BIGINT) AS net_cents, \
         CAST(COALESCE(SUM(tax_cents), 0) AS BIGINT) AS tax_cents, \
         CAST(COALESCE(SUM(gross_cents), 0) AS BIGINT) AS gross_cents \
         FROM sale_taxes WHERE paid_at_ms >= $1 AND paid_at_ms < $2",
    )
    .bind::<BigInt, _>(from_ms)
    .bind::<BigInt, _>(to_ms)
    .get_result(conn)?)
}
