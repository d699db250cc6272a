//! CSV for the owner's exports (RFC 4180: comma separated, CRLF line ends), written with the
//! `csv` crate's writer: a cell is quoted when it holds a comma, a quote or a line break, its
//! quotes doubled. Rows are made one at a time, so an export streams in pages as it is read.
//!
//! Free text (emails, references, upstream's strings) is guarded against formula injection:
//! a spreadsheet treats a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
//! as a formula, so such text gets a leading `'`. Numbers are written with [`number`] and
//! keep their minus sign.

use super::ledger::RunningTransaction;
use super::reconcile::Line;
use crate::db::books::ExportedOrder;
use crate::domain::Cents;
use crate::domain::plan::describe_allowance;
use crate::i18n::Lang;

/// One CSV row from its cells (made with [`text`] or [`number`]), CRLF-terminated.
pub fn row<C: AsRef<[u8]>>(cells: impl IntoIterator<Item = C>) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .buffer_capacity(1024)
        .from_writer(Vec::with_capacity(256));
    // Writing into memory has no I/O to fail, and every cell is UTF-8 text, so neither
    // fallback below is ever taken; they keep a broken row from becoming a panic.
    let bytes = match writer.write_record(cells) {
        Ok(()) => writer.into_inner().unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    String::from_utf8(bytes).unwrap_or_default()
}

/// A free-text cell, formula-guarded.
pub fn text(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_string()
    }
}

/// A cell the shop itself produced (a number, a date, a status).
pub fn number(value: impl ToString) -> String {
    value.to_string()
}

/// `2026-11-22T14:03:05Z`; empty when the time is not representable.
pub fn iso_ms(ms: i64) -> String {
    crate::domain::clock::rfc3339(ms)
}

fn money(cents: Cents) -> [String; 2] {
    [number(cents.get()), number(cents.plain())]
}

fn with_money(mut cells: Vec<String>, amounts: &[Cents]) -> Vec<String> {
    for a in amounts {
        cells.extend(money(*a));
    }
    cells
}

// ---- orders ---------------------------------------------------------------------------------

pub const ORDER_HEADER: &str = "order_number,purchase_id,created_at,paid_at,status,email,plan_id,reference,upstream_order_id,upstream_status,price_cents,price_dollars,net_cents,net_dollars,tax_cents,tax_dollars,gross_cents,gross_dollars,cost_cents,cost_dollars,refunded_cents,refunded_dollars,margin_cents,margin_dollars,promo_code,discount_cents,discount_dollars,plan_name,country\r\n";

/// The orders CSV's rows, a page at a time. A plan's name and country are worded once per
/// plan and kept for the rest of the export (an export names the same plans over and over),
/// and a page is written by one writer into one chunk.
#[derive(Debug, Default)]
pub struct OrderRows {
    plans: std::collections::HashMap<String, [String; 2]>,
}

impl OrderRows {
    /// The rows of `orders`, in order, as one chunk of the body.
    pub fn page(&mut self, orders: &[ExportedOrder]) -> String {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::with_capacity(orders.len() * 320));
        for order in orders {
            let cells = self.cells(order);
            // Writing into memory has no I/O to fail; a broken row is left out rather than
            // becoming a panic.
            if writer.write_record(&cells).is_err() {
                continue;
            }
        }
        let bytes = writer.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// An order's cells: never a token, key or installation value. Net, tax and gross are the
    /// eSIM's share of its order's tax (`unit_taxes`); gross is what it charged, the
    /// price with any tax added on top. The cost is the supplier
    /// cost and the margin the one
    /// [`Takings::margin`](crate::domain::takings::Takings::margin) defines, as on the
    /// console's order page, the dashboard and the books. The plan's name and country are
    /// empty once the catalog no longer has the plan; the discount is empty for an order
    /// without a promotion code.
    fn cells(&mut self, o: &ExportedOrder) -> Vec<String> {
        let p = &o.purchase;
        let takings = o.takings();
        let cells = vec![
            // The number the buyer quotes: their checkout's, the same on each of its units' rows.
            number(p.checkout_id.order_number()),
            text(p.id.as_str()),
            number(iso_ms(p.created_at_ms)),
            number(p.paid_at_ms.map(iso_ms).unwrap_or_default()),
            number(p.status.as_str()),
            text(p.email.as_str()),
            text(&p.plan_id),
            text(&p.reference),
            text(p.upstream_order_id.as_deref().unwrap_or("")),
            text(p.upstream_status.as_deref().unwrap_or("")),
        ];
        let mut cells = with_money(
            cells,
            &[
                p.price_cents,
                // The eSIM's share of its order's tax: before tax, the tax, what was charged.
                Cents::new(o.tax.charged(p.price_cents).get() - o.tax.tax.get()),
                o.tax.tax,
                o.tax.charged(p.price_cents),
                takings.supplier_cost,
                takings.refunded,
                takings.margin(),
            ],
        );
        cells.push(text(p.promo_code.as_deref().unwrap_or("")));
        match p.discount_cents {
            Some(discount) => cells.extend(money(Cents::new(discount))),
            None => cells.extend([String::new(), String::new()]),
        }
        match &o.plan {
            Some(plan) => cells.extend(
                self.plans
                    .entry(p.plan_id.clone())
                    .or_insert_with(|| plan_cells(plan))
                    .clone(),
            ),
            None => cells.extend([String::new(), String::new()]),
        }
        cells
    }
}

/// A plan's name and country as the orders CSV words them.
fn plan_cells(plan: &crate::db::books::PlanFacts) -> [String; 2] {
    [
        text(&describe_allowance(
            Lang::En,
            plan.data_mb,
            plan.validity_days,
            plan.is_daily,
        )),
        text(&format!("{} ({})", plan.country_name, plan.country_code)),
    ]
}

// ---- reconciliation -------------------------------------------------------------------------

pub const RECONCILIATION_HEADER: &str = "kind,at,purchase_id,upstream_reference,upstream_status,matches,paid_cents,paid_dollars,refunded_cents,refunded_dollars,tax_cents,tax_dollars,cost_cents,cost_dollars,margin_cents,margin_dollars,shop_wallet_cents,shop_wallet_dollars,upstream_wallet_cents,upstream_wallet_dollars,difference_cents,difference_dollars,transactions,problems,explanation\r\n";

pub fn reconciliation_row(line: &Line) -> String {
    let cells = vec![
        number(line.kind.as_str()),
        number(line.at_ms.map(iso_ms).unwrap_or_default()),
        text(line.purchase_id.as_deref().unwrap_or("")),
        text(&line.reference),
        text(line.upstream_status.as_deref().unwrap_or("")),
        number(match (line.is_mismatch(), &line.explanation) {
            (false, _) => "yes",
            (true, Some(_)) => "explained",
            (true, None) => "no",
        }),
    ];
    let mut cells = with_money(
        cells,
        &[
            line.paid,
            line.refunded,
            line.tax,
            line.cost,
            line.margin(),
            line.shop_wallet,
            line.upstream_wallet,
            line.difference(),
        ],
    );
    cells.push(text(&line.transactions.join("; ")));
    cells.push(text(&line.problems.join("; ")));
    cells.push(text(
        line.explanation.as_ref().map_or("", |e| e.note.as_str()),
    ));
    row(cells)
}

// ---- wallet ---------------------------------------------------------------------------------

pub const WALLET_HEADER: &str = "id,created_at,type,reference,available_delta_cents,available_delta_dollars,reserved_delta_cents,reserved_delta_dollars,available_after_cents,available_after_dollars,reserved_after_cents,reserved_after_dollars\r\n";

pub fn wallet_row(r: &RunningTransaction) -> String {
    let t = &r.transaction;
    let cells = vec![
        number(t.id),
        // Upstream's own text when it is no readable time: kept, so nothing is lost.
        match r.at_ms {
            Some(ms) => number(iso_ms(ms)),
            None => text(&t.created_at),
        },
        text(&t.kind),
        text(&t.reference),
    ];
    row(with_money(
        cells,
        &[
            t.available_delta_cents,
            t.reserved_delta_cents,
            r.available_after,
            r.reserved_after,
        ],
    ))
}

// ---- tax ------------------------------------------------------------------------------------

pub const TAX_REPORT_HEADER: &str = "quarter,country,country_name,rate_percent,rate_bps,taxable_cents,taxable_dollars,tax_cents,tax_dollars,sold_taxable_cents,sold_tax_cents,credited_taxable_cents,credited_tax_cents\r\n";

/// One line of the quarterly tax report: a customer country and rate, the amounts to declare
/// (sold less credited) and both parts. An unknown country or rate is an empty cell.
pub fn tax_report_row(quarter: &str, line: &crate::orders::tax::ReportLine) -> String {
    let country = line.country.clone().unwrap_or_default();
    let name = crate::domain::countries::name(&country).unwrap_or_default();
    let cells = vec![
        number(quarter),
        text(&country),
        text(name),
        number(
            line.rate
                .map(|r| r.to_string().trim_end_matches('%').to_string())
                .unwrap_or_default(),
        ),
        number(line.rate.map(|r| r.get().to_string()).unwrap_or_default()),
    ];
    let mut cells = with_money(cells, &[line.taxable(), line.tax()]);
    cells.extend([
        number(line.sold_taxable.get()),
        number(line.sold_tax.get()),
        number(line.credited_taxable.get()),
        number(line.credited_tax.get()),
    ]);
    row(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_the_formula_guard() {
        let cell = |value: &str| row([text(value)]);
        assert_eq!(cell("plain@example.com"), "plain@example.com\r\n");
        assert_eq!(cell("a,b"), "\"a,b\"\r\n");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"\r\n");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"\r\n");
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"\r\n");
        assert_eq!(cell("+1"), "'+1\r\n");
        assert_eq!(cell("-1"), "'-1\r\n");
        assert_eq!(cell("@sum"), "'@sum\r\n");
        assert_eq!(row([number(-12)]), "-12\r\n", "numbers keep their sign");
        assert_eq!(row([text("a"), number(1), text("")]), "a,1,\r\n");
    }

    #[test]
    fn times_are_iso() {
        assert_eq!(iso_ms(1_795_327_235_000), "2026-11-22T06:00:35Z");
    }
}
