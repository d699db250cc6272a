//! Tax on sales: the owner's setting and rate table, what a payment must amount to, and the
//! record of each taxed sale.
//!
//! - **Setting** (`/admin/tax`, owners): off (the default), prices include tax, or tax added on
//!   top; and a rate per customer country. Each change is audited in its transaction.
//! - **A checkout keeps its mode**: checkout stores the mode it started under
//!   (`checkouts.tax_mode`), so the payment page, the amount checked at payment and the
//!   record agree even if the owner changes the setting meanwhile. A checkout started while
//!   tax was off is never taxed.
//! - **At payment** ([`assess`], in the confirming transaction, before the receipt): with a
//!   provider that computes tax (Stripe Tax) the amount, rate and jurisdiction are recorded as
//!   it reports them; a report without a breakdown is recorded as one line of unknown
//!   jurisdiction and rate, never guessed. Otherwise the shop's table gives the rate of the
//!   billing country the provider reports; a country without a rate is recorded untaxed.
//!   Tax added on top makes the charge `price + tax`; prices that include tax charge the
//!   price. Costs, holds and the wallet never see tax.
//! - **Evidence**: the billing country the provider reports, and the country of the client's
//!   address when the trusted proxy in front of the shop names it
//!   (`STOREFRONT_CLIENT_COUNTRY_HEADER`, kept with the checkout when it starts). The billing
//!   country decides the shop's own rate; the client's country is kept beside it, so a sale
//!   whose two pieces of evidence disagree can be found.
//! - **Rounding**: `domain::tax` (half up on cents, one function).

use crate::db::tax::{self as q, CreditNoteTaxLineRow, RateRow, SaleTaxLineRow, SaleTaxRow};
use crate::db::{self, DbConn, DbError, now_ms};
use crate::domain::Cents;
use crate::domain::PurchaseId;
use crate::domain::tax::{
    CountryCode, Quarter, RateBps, TaxError, TaxLine, TaxMode, TaxSplit, UnitTax, allocate,
    proportional, split,
};
use crate::orders::Orders;
use crate::payments::{PaidTax, ProviderTax};
use crate::staff::Admin;

/// Audit actions of the tax page.
pub mod action {
    pub use crate::staff::action::{TAX_MODE_SET, TAX_RATE_REMOVED, TAX_RATE_SET};
}

/// Where a sale's tax came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaxSource {
    /// The payment provider computed it (Stripe Tax).
    Provider,
    /// The shop's own rate table, by the customer's country.
    Table,
}

impl TaxSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Provider => "provider",
            Self::Table => "table",
        }
    }
}

/// The owner's tax setting as the console shows it.
#[derive(Debug, Clone)]
pub struct TaxSettings {
    pub mode: TaxMode,
    pub rates: Vec<(CountryCode, RateBps, i64)>,
}

fn typed_rates(rows: Vec<RateRow>) -> Vec<(CountryCode, RateBps, i64)> {
    rows.into_iter()
        .filter_map(|row| {
            Some((
                CountryCode::parse(&row.country).ok()?,
                RateBps::new(row.rate_bps).ok()?,
                row.updated_at_ms,
            ))
        })
        .collect()
}

/// The mode and the rate table.
#[tracing::instrument(skip_all)]
pub async fn settings(orders: &Orders) -> Result<TaxSettings, DbError> {
    orders
        .db()
        .run(|conn| {
            Ok(TaxSettings {
                mode: q::mode(conn)?,
                rates: typed_rates(q::rates(conn)?),
            })
        })
        .await
}

/// Why the console's tax form changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum TaxSettingError {
    #[error(transparent)]
    Invalid(#[from] TaxError),
    #[error(transparent)]
    Database(#[from] DbError),
}

/// Sets the mode (`off`, `inclusive`, `exclusive`), audited with the mode before. New
/// checkouts take it at once; checkouts already started keep theirs.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
pub async fn set_mode(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
    mode: &str,
) -> Result<(), TaxSettingError> {
    let mode = TaxMode::parse(mode.trim()).ok_or(TaxError::Mode)?;
    let (by, client) = (by.clone(), client_addr.to_string());
    orders
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let before = q::mode(conn)?;
                q::set_mode(conn, mode, now)?;
                by.audit(
                    conn,
                    action::TAX_MODE_SET,
                    Some("tax"),
                    &client,
                    &format!(
                        "before: {}; after: {}",
                        mode_words(before),
                        mode_words(mode)
                    ),
                    now,
                )
            })
        })
        .await?;
    Ok(())
}

/// The mode in the owner's words.
pub fn mode_words(mode: TaxMode) -> &'static str {
    match mode {
        TaxMode::Off => "no tax",
        TaxMode::Inclusive => "prices include tax",
        TaxMode::Exclusive => "tax added on top of prices",
    }
}

/// Sets `country`'s rate from the owner's percentage, audited with the rate before.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
pub async fn set_rate(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
    country: &str,
    percent: &str,
) -> Result<(CountryCode, RateBps), TaxSettingError> {
    let country = CountryCode::parse(country)?;
    let rate = RateBps::parse_percent(percent)?;
    let (by, client, code) = (by.clone(), client_addr.to_string(), country.clone());
    orders
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let before = q::rate_of(conn, code.as_str())?
                    .and_then(|row| RateBps::new(row.rate_bps).ok())
                    .map_or_else(|| "none".to_string(), |r| r.to_string());
                q::set_rate(conn, code.as_str(), rate.get(), now)?;
                by.audit(
                    conn,
                    action::TAX_RATE_SET,
                    Some(&format!("tax:{code}")),
                    &client,
                    &format!("{}: before {before}; after {rate}", code.name()),
                    now,
                )
            })
        })
        .await?;
    Ok((country, rate))
}

/// Removes `country`'s rate, audited; returns whether there was one.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
pub async fn remove_rate(
    orders: &Orders,
    by: &Admin,
    client_addr: &str,
    country: &str,
) -> Result<bool, TaxSettingError> {
    let country = CountryCode::parse(country)?;
    let (by, client) = (by.clone(), client_addr.to_string());
    Ok(orders
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let Some(row) = q::rate_of(conn, country.as_str())? else {
                    return Ok::<bool, DbError>(false);
                };
                q::remove_rate(conn, country.as_str())?;
                let was = RateBps::new(row.rate_bps).map_or_else(|_| "?".into(), |r| r.to_string());
                by.audit(
                    conn,
                    action::TAX_RATE_REMOVED,
                    Some(&format!("tax:{country}")),
                    &client,
                    &format!("{}: was {was}", country.name()),
                    now,
                )?;
                Ok(true)
            })
        })
        .await?)
}

/// What the shop's table charges on `price` for a customer of `country` under `mode`, and
/// the rate it used (`None`: no rate kept for the country, or no country: untaxed).
pub fn table_quote(
    conn: &mut DbConn,
    mode: TaxMode,
    country: Option<&CountryCode>,
    price: Cents,
) -> Result<(TaxSplit, Option<RateBps>), DbError> {
    if !mode.is_on() {
        return Ok((TaxSplit::untaxed(price), None));
    }
    let rate = match country {
        Some(country) => {
            q::rate_of(conn, country.as_str())?.and_then(|row| RateBps::new(row.rate_bps).ok())
        }
        None => None,
    };
    Ok(match rate {
        Some(rate) => (split(price, rate, mode), Some(rate)),
        None => (TaxSplit::untaxed(price), None),
    })
}

/// The tax a payment of checkout `checkout_id` carries, worked out in the confirming
/// transaction before anything is written.
#[derive(Debug, Clone)]
pub struct Assessed {
    checkout_id: PurchaseId,
    pub mode: TaxMode,
    /// What the provider must have charged.
    pub expected: Cents,
    sale: Option<(SaleTaxRow, Vec<SaleTaxLineRow>)>,
}

impl Assessed {
    /// Tax off for this checkout: the charge is the price, nothing is recorded.
    fn untaxed(checkout_id: &PurchaseId, price: Cents) -> Self {
        Self {
            checkout_id: checkout_id.clone(),
            mode: TaxMode::Off,
            expected: price,
            sale: None,
        }
    }
}

/// What checkout `checkout_id`, priced `price` in all, must have been charged and the tax
/// to record, from what the provider reported (`paid`) and the mode the checkout keeps. See
/// the module's note for the rules.
pub fn assess(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
    price: Cents,
    paid: &PaidTax,
) -> Result<Assessed, DbError> {
    let (mode, client_country) = db::checkouts::tax_evidence(conn, checkout_id)?;
    let mode = TaxMode::from_stored(mode.as_deref());
    if !mode.is_on() {
        return Ok(Assessed::untaxed(checkout_id, price));
    }
    let billing = paid
        .billing_country
        .as_deref()
        .and_then(|c| CountryCode::parse(c).ok());
    let (source, taxes, lines, country) = match &paid.computed {
        Some(reported) => {
            let (tax, lines) = provider_lines(reported, mode, price);
            // The provider's own view of where the customer is: a single jurisdiction
            // across its lines, else the billing country.
            let country = single_jurisdiction(&lines).or_else(|| billing.clone());
            (TaxSource::Provider, tax, lines, country)
        }
        None => {
            let (taxed, rate) = table_quote(conn, mode, billing.as_ref(), price)?;
            let lines = match (rate, &billing) {
                (Some(rate), Some(country)) => vec![TaxLine {
                    jurisdiction: Some(country.as_str().to_string()),
                    rate: Some(rate),
                    taxable: taxed.net,
                    tax: taxed.tax,
                }],
                _ => Vec::new(),
            };
            (TaxSource::Table, taxed, lines, billing.clone())
        }
    };
    let row = SaleTaxRow {
        checkout_id: checkout_id.as_str().to_string(),
        country: country.map(|c| c.as_str().to_string()),
        billing_country: billing.map(|c| c.as_str().to_string()),
        client_country: client_country
            .and_then(|c| CountryCode::parse(&c).ok())
            .map(|c| c.as_str().to_string()),
        mode: mode.as_str().to_string(),
        source: source.as_str().to_string(),
        net_cents: taxes.net.get(),
        tax_cents: taxes.tax.get(),
        gross_cents: taxes.gross.get(),
        paid_at_ms: 0,
    };
    let line_rows = lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| SaleTaxLineRow {
            checkout_id: checkout_id.as_str().to_string(),
            line_no: i32::try_from(i + 1).unwrap_or(i32::MAX),
            jurisdiction: line.jurisdiction,
            rate_bps: line.rate.map(RateBps::get),
            taxable_cents: line.taxable.get(),
            tax_cents: line.tax.get(),
        })
        .collect();
    Ok(Assessed {
        checkout_id: checkout_id.clone(),
        mode,
        expected: taxes.gross,
        sale: Some((row, line_rows)),
    })
}

/// The split and lines of tax a provider computed: the amount as reported; the lines of its
/// breakdown as reported, or one line of unknown jurisdiction and rate when it gave none.
fn provider_lines(reported: &ProviderTax, mode: TaxMode, price: Cents) -> (TaxSplit, Vec<TaxLine>) {
    let tax = Cents::new(reported.amount.get().max(0));
    let gross = match mode {
        TaxMode::Exclusive => Cents::new(price.get().saturating_add(tax.get())),
        _ => price,
    };
    let net = Cents::new(gross.get() - tax.get());
    let lines = if reported.lines.is_empty() {
        if tax.get() == 0 {
            Vec::new()
        } else {
            vec![TaxLine {
                jurisdiction: None,
                rate: None,
                taxable: net,
                tax,
            }]
        }
    } else {
        reported.lines.clone()
    };
    (TaxSplit { net, tax, gross }, lines)
}

fn single_jurisdiction(lines: &[TaxLine]) -> Option<CountryCode> {
    let mut codes = lines
        .iter()
        .filter_map(|l| l.jurisdiction.as_deref())
        .filter_map(|j| CountryCode::parse(j).ok());
    let first = codes.next()?;
    codes.all(|c| c == first).then_some(first)
}

/// Records the assessed tax of a paid checkout, in the confirming transaction (before its
/// receipt, which shows it): the sale with its lines, and each eSIM's share of the tax
/// ([`allocate`], by price) in `unit_taxes`, which its refund gives back with the price
/// when tax was added on top. Nothing for a checkout taxed under no mode or
/// already recorded.
pub fn record(conn: &mut DbConn, assessed: &Assessed, now: i64) -> Result<(), DbError> {
    let Some((sale, lines)) = &assessed.sale else {
        return Ok(());
    };
    if q::sale_of(conn, &sale.checkout_id)?.is_some() {
        return Ok(());
    }
    let sale = SaleTaxRow {
        paid_at_ms: now,
        ..sale.clone()
    };
    q::insert_sale(conn, &sale, lines)?;
    let units = db::purchases::units_of(conn, &assessed.checkout_id)?;
    let prices: Vec<Cents> = units.iter().map(|u| u.price_cents).collect();
    let shares = allocate(Cents::new(sale.tax_cents), &prices);
    for (unit, share) in units.iter().zip(shares) {
        let added = match assessed.mode {
            TaxMode::Exclusive => share,
            TaxMode::Inclusive | TaxMode::Off => Cents::ZERO,
        };
        q::insert_unit_tax(conn, &unit.id, UnitTax { tax: share, added })?;
        db::purchases::money_changed(conn, &unit.id)?;
    }
    Ok(())
}

/// A sale's recorded tax with its lines.
#[derive(Debug, Clone)]
pub struct SaleTax {
    pub sale: SaleTaxRow,
    pub lines: Vec<SaleTaxLineRow>,
}

impl SaleTax {
    pub fn mode(&self) -> TaxMode {
        TaxMode::from_stored(Some(&self.sale.mode))
    }
}

/// The recorded tax of checkout `checkout_id`, if it was taxed.
pub fn sale_tax(conn: &mut DbConn, checkout_id: &str) -> Result<Option<SaleTax>, DbError> {
    let Some(sale) = q::sale_of(conn, checkout_id)? else {
        return Ok(None);
    };
    let lines = q::sale_lines_of(conn, checkout_id)?;
    Ok(Some(SaleTax { sale, lines }))
}

/// The tax a refund of `refunded` of eSIM `unit` carries back, for credit note
/// `credit_note_id`, recorded in the caller's transaction: of each line of its sale's tax,
/// the eSIM's share ([`allocate`], as at payment), in the part `refunded` is of what the eSIM
/// charged; all of it for a refund of the whole eSIM. Nothing when the sale was not taxed.
pub fn record_credit(
    conn: &mut DbConn,
    unit: &db::purchases::Purchase,
    credit_note_id: &str,
    refunded: Cents,
    now: i64,
) -> Result<Vec<CreditNoteTaxLineRow>, DbError> {
    let Some(sale) = sale_tax(conn, unit.checkout_id.as_str())? else {
        return Ok(Vec::new());
    };
    let units = db::purchases::units_of(conn, &unit.checkout_id)?;
    let Some(at) = units.iter().position(|u| u.id == unit.id) else {
        return Ok(Vec::new());
    };
    let prices: Vec<Cents> = units.iter().map(|u| u.price_cents).collect();
    let charged = q::unit_tax(conn, &unit.id)?.charged(unit.price_cents);
    let share_of = |amount: i64| {
        let share = allocate(Cents::new(amount), &prices)
            .get(at)
            .copied()
            .unwrap_or(Cents::ZERO);
        proportional(share, refunded, charged).get()
    };
    let lines: Vec<CreditNoteTaxLineRow> = sale
        .lines
        .iter()
        .map(|line| CreditNoteTaxLineRow {
            credit_note_id: credit_note_id.to_string(),
            line_no: line.line_no,
            country: sale.sale.country.clone(),
            jurisdiction: line.jurisdiction.clone(),
            rate_bps: line.rate_bps,
            taxable_cents: share_of(line.taxable_cents),
            tax_cents: share_of(line.tax_cents),
            issued_at_ms: now,
        })
        .collect();
    q::insert_credit_note_lines(conn, &lines)?;
    Ok(lines)
}

/// One line of the quarterly report: a customer country and a rate, with what was sold in the
/// quarter less what credit notes of the quarter carried back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportLine {
    /// The customer's country; `None` when the provider did not say where.
    pub country: Option<String>,
    /// `None` when the provider reported no rate.
    pub rate: Option<RateBps>,
    pub sold_taxable: Cents,
    pub sold_tax: Cents,
    pub credited_taxable: Cents,
    pub credited_tax: Cents,
}

impl ReportLine {
    /// The taxable amount to declare: sold less credited.
    pub fn taxable(&self) -> Cents {
        Cents::new(self.sold_taxable.get() - self.credited_taxable.get())
    }

    /// The tax to declare: sold less credited.
    pub fn tax(&self) -> Cents {
        Cents::new(self.sold_tax.get() - self.credited_tax.get())
    }
}

/// The tax of a quarter by customer country and rate: the shape a One-Stop-Shop return asks
/// for. Sales count in the quarter they were paid, credit notes in the quarter they were
/// issued (a refund in a later quarter lowers that quarter's figures, not the sale's).
#[derive(Debug, Clone)]
pub struct QuarterReport {
    pub quarter: Quarter,
    pub lines: Vec<ReportLine>,
}

impl QuarterReport {
    pub fn taxable(&self) -> Cents {
        Cents::new(self.lines.iter().map(|l| l.taxable().get()).sum())
    }

    pub fn tax(&self) -> Cents {
        Cents::new(self.lines.iter().map(|l| l.tax().get()).sum())
    }

    /// The tax the quarter's credit notes carried back (already taken off [`Self::tax`]).
    pub fn credited_tax(&self) -> Cents {
        Cents::new(self.lines.iter().map(|l| l.credited_tax.get()).sum())
    }
}

/// The report of `quarter` (see [`QuarterReport`]); reads only that quarter's rows, by index.
#[tracing::instrument(skip_all)]
pub async fn quarter_report(orders: &Orders, quarter: Quarter) -> Result<QuarterReport, DbError> {
    let (from, to) = (quarter.start_ms(), quarter.end_ms());
    let (sold, credited) = orders
        .db()
        .run(move |conn| {
            Ok::<_, DbError>((
                q::sold_by_country_rate(conn, from, to)?,
                q::credited_by_country_rate(conn, from, to)?,
            ))
        })
        .await?;
    let mut lines: Vec<ReportLine> = Vec::new();
    let mut line_of = |country: Option<String>, rate: Option<i32>| -> usize {
        let rate = rate.and_then(|bps| RateBps::new(bps).ok());
        match lines
            .iter()
            .position(|l| l.country == country && l.rate == rate)
        {
            Some(at) => at,
            None => {
                lines.push(ReportLine {
                    country,
                    rate,
                    sold_taxable: Cents::ZERO,
                    sold_tax: Cents::ZERO,
                    credited_taxable: Cents::ZERO,
                    credited_tax: Cents::ZERO,
                });
                lines.len() - 1
            }
        }
    };
    let mut places = Vec::new();
    for row in sold {
        let at = line_of(row.country.clone(), row.rate_bps);
        places.push((at, row, false));
    }
    for row in credited {
        let at = line_of(row.country.clone(), row.rate_bps);
        places.push((at, row, true));
    }
    for (at, row, credit) in places {
        if let Some(line) = lines.get_mut(at) {
            if credit {
                line.credited_taxable = Cents::new(line.credited_taxable.get() + row.taxable_cents);
                line.credited_tax = Cents::new(line.credited_tax.get() + row.tax_cents);
            } else {
                line.sold_taxable = Cents::new(line.sold_taxable.get() + row.taxable_cents);
                line.sold_tax = Cents::new(line.sold_tax.get() + row.tax_cents);
            }
        }
    }
    lines.sort_by(|a, b| (&a.country, a.rate).cmp(&(&b.country, b.rate)));
    Ok(QuarterReport { quarter, lines })
}

/// Net, tax and gross of the taxed sales paid in `[from_ms, to_ms)`, and the tax credit
/// notes issued then carried back: the books' tax figures for a period.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeriodTax {
    pub sales: i64,
    pub net: Cents,
    pub tax: Cents,
    pub gross: Cents,
    pub credited_tax: Cents,
}

#[tracing::instrument(skip_all)]
pub async fn period_tax(orders: &Orders, from_ms: i64, to_ms: i64) -> Result<PeriodTax, DbError> {
    orders
        .db()
        .run(move |conn| {
            let totals = q::totals(conn, from_ms, to_ms)?;
            let credited: i64 = q::credited_by_country_rate(conn, from_ms, to_ms)?
                .iter()
                .map(|row| row.tax_cents)
                .sum();
            Ok(PeriodTax {
                sales: totals.sales,
                net: Cents::new(totals.net_cents),
                tax: Cents::new(totals.tax_cents),
                gross: Cents::new(totals.gross_cents),
                credited_tax: Cents::new(credited),
            })
        })
        .await
}
