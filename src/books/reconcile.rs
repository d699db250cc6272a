//! Matching the shop's books against upstream's, for one period. Pure: the caller gathers
//! both sides (see [`super::Books::reconcile`]).
//!
//! Each upstream transaction lands on exactly one line, so the totals of the lines are the
//! totals of both sides:
//! - a **purchase line** per upstream order or paid purchase (joined by the purchase's
//!   reference, or by the order id the shop stored), carrying the order's `reservation`,
//!   `settlement`, `release` and `refund` transactions (by reference: the order id or its
//!   reference). The shop expects the wallet to have paid the purchase's cost once, unless
//!   upstream reported the order `failed` (released) or `refunded`;
//! - a **top-up line** per `credit` of a top-up the shop started and per top-up the shop
//!   confirmed;
//! - an **outside credit line** per `credit` the shop did not start (the supplier account's
//!   opening credit, a bank transfer made in the supplier's portal): the owner's own money
//!   coming in, which the books take as it is, never a mismatch ([`LineKind::of_credit`]);
//! - an **other line** per transaction of another type ("unclassified") or for no known order.
//!
//! Every line has a stable [`Line::key`] (the upstream order id, the transaction id, or the
//! top-up or purchase it stands for), by which the owner's explanation of a mismatch is kept
//! ([`Shop::explanations`]): an explained mismatch is still listed, with its note, but no
//! longer open, and a period whose mismatches are all explained closes ([`Report::closes`]).
//!
//! A line belongs to the period of its purchase's payment (a purchase with everything that
//! happened to it since), or, without a purchase, of upstream's time for it. A line whose
//! time cannot be read is listed in every period: it can be placed in none.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::period::{Period, upstream_time_ms};
use crate::db::books::{BookPurchase, BookTopup};
use crate::domain::Cents;
use crate::domain::takings::{Takings, gives_cost_back};
use crate::upstream::{BalanceTransaction, Order, OrderStatus};

/// Upstream's side: every transaction and every order.
#[derive(Debug, Clone, Default)]
pub struct Upstream {
    pub transactions: Vec<BalanceTransaction>,
    pub orders: Vec<Order>,
}

/// The shop's side.
#[derive(Debug, Clone, Default)]
pub struct Shop {
    pub purchases: Vec<BookPurchase>,
    pub topups: Vec<BookTopup>,
    /// The owner's explanations of mismatches, by [`Line::key`].
    pub explanations: HashMap<String, Explanation>,
}

/// The owner's word on a mismatch: why the two sides differ, and that it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub note: String,
    /// Who explained it (the console account's email).
    pub by: String,
    pub at_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LineKind {
    Purchase,
    TopUp,
    /// A credit the shop did not start: the owner's money, added outside the shop.
    OutsideCredit,
    Other,
}

impl LineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Purchase => "purchase",
            Self::TopUp => "top-up",
            Self::OutsideCredit => "outside credit",
            Self::Other => "unclassified",
        }
    }

    /// The kind in the owner's words, for the books page.
    pub fn label(self) -> &'static str {
        match self {
            Self::Purchase => "Sale",
            Self::TopUp => "Top-up from the shop",
            Self::OutsideCredit => "Credit from outside the shop",
            Self::Other => "Other supplier movement",
        }
    }

    /// The kind of a `credit` transaction: a top-up when it names one the shop started
    /// (`started`), otherwise, when it adds money, a credit from outside the shop. A credit
    /// that names no top-up and takes money away stays a top-up line, which the books then
    /// list as a mismatch.
    pub fn of_credit(started: bool, available_delta: Cents) -> Self {
        if started || available_delta.get() <= 0 {
            Self::TopUp
        } else {
            Self::OutsideCredit
        }
    }
}

/// One line of the books, with both sides. Stored with a day's books (`super::days`) without
/// its explanation, which is the owner's and read afresh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub kind: LineKind,
    /// The line's identity across runs and periods: `order:ID` (upstream's order id),
    /// `transaction:ID` (a credit's or other movement's transaction id), `topup:SESSION` (a
    /// top-up upstream lists no credit for) or `purchase:ID` (a purchase never placed).
    pub key: String,
    /// When it happened (payment, or upstream's time); `None` when unreadable.
    pub at_ms: Option<i64>,
    pub purchase_id: Option<String>,
    /// The purchase's checkout, whose order number the buyer quotes for each of its eSIMs.
    pub checkout_id: Option<String>,
    /// Upstream's handle: the order id, the top-up's checkout session, the transaction's
    /// reference.
    pub reference: String,
    pub upstream_status: Option<String>,
    /// What the buyer paid (tax included), and got back.
    pub paid: Cents,
    pub refunded: Cents,
    /// The tax kept on the sale, owed to the tax office (see [`Takings`]).
    pub tax: Cents,
    /// The wholesale cost the shop's books carry.
    pub cost: Cents,
    /// What the shop's books expect upstream's available credit to have moved by.
    pub shop_wallet: Cents,
    /// What it moved by: the sum of the line's transactions' `availableDeltaCents`.
    pub upstream_wallet: Cents,
    /// The transactions on the line: `type amount` each.
    pub transactions: Vec<String>,
    /// Why the two sides disagree; empty when they match.
    pub problems: Vec<String>,
    /// The owner's explanation, when the line is a mismatch the owner explained.
    #[serde(skip)]
    pub explanation: Option<Explanation>,
}

impl Line {
    fn new(kind: LineKind, key: String, reference: &str) -> Self {
        Self {
            kind,
            key,
            at_ms: None,
            purchase_id: None,
            checkout_id: None,
            reference: reference.to_string(),
            upstream_status: None,
            paid: Cents::ZERO,
            refunded: Cents::ZERO,
            tax: Cents::ZERO,
            cost: Cents::ZERO,
            shop_wallet: Cents::ZERO,
            upstream_wallet: Cents::ZERO,
            transactions: Vec::new(),
            problems: Vec::new(),
            explanation: None,
        }
    }

    /// The two sides disagree (explained or not).
    pub fn is_mismatch(&self) -> bool {
        !self.problems.is_empty()
    }

    /// A mismatch the owner has not explained: what keeps the period from closing.
    pub fn is_open(&self) -> bool {
        self.is_mismatch() && self.explanation.is_none()
    }

    /// The purchase's order number as customers quote it (`SF-…`): its checkout's.
    pub fn order_number(&self) -> Option<String> {
        self.checkout_id
            .as_deref()
            .map(crate::domain::purchase::order_number)
    }

    /// The line's money: what the buyer paid and got back, and its supplier cost.
    pub fn takings(&self) -> Takings {
        Takings {
            paid: self.paid,
            refunded: self.refunded,
            tax: self.tax,
            supplier_cost: self.cost,
        }
    }

    /// See [`Takings::margin`].
    pub fn margin(&self) -> Cents {
        self.takings().margin()
    }

    /// Upstream's movement less the shop's expectation.
    pub fn difference(&self) -> Cents {
        Cents::new(
            self.upstream_wallet
                .get()
                .saturating_sub(self.shop_wallet.get()),
        )
    }

    fn add_transaction(&mut self, t: &BalanceTransaction) {
        self.upstream_wallet = Cents::new(
            self.upstream_wallet
                .get()
                .saturating_add(t.available_delta_cents.get()),
        );
        self.transactions
            .push(format!("{} {}", t.kind, t.available_delta_cents));
    }

    /// The line as one line of text: what the command prints per mismatch.
    pub fn summary(&self) -> String {
        let who = match &self.purchase_id {
            Some(id) => format!(
                "{} {} (upstream {})",
                self.kind.as_str(),
                id,
                self.reference
            ),
            None => format!("{} {}", self.kind.as_str(), self.reference),
        };
        format!(
            "{who}: {} [upstream {}, shop {}, difference {}]",
            self.problems.join("; "),
            self.upstream_wallet,
            self.shop_wallet,
            self.difference()
        )
    }
}

/// The line's key for a transaction of its own.
fn transaction_key(t: &BalanceTransaction) -> String {
    format!("transaction:{}", t.id)
}

/// Whether `key` has the shape of a [`Line::key`]: one of its prefixes and a value of 1 to 200
/// characters.
pub fn is_line_key(key: &str) -> bool {
    ["order:", "transaction:", "topup:", "purchase:"]
        .iter()
        .any(|prefix| {
            key.strip_prefix(prefix)
                .is_some_and(|rest| (1..=200).contains(&rest.chars().count()))
        })
}

/// The period's books.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub period: Period,
    pub lines: Vec<Line>,
    pub totals: Totals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    pub purchases: i64,
    pub paid: Cents,
    pub refunded: Cents,
    /// Tax kept on the period's sales: not margin.
    pub tax: Cents,
    pub cost: Cents,
    pub margin: Cents,
    /// Top-ups the shop confirmed.
    pub topups: Cents,
    /// Credits from outside the shop.
    pub outside_credits: Cents,
    pub shop_wallet: Cents,
    pub upstream_wallet: Cents,
    /// `upstream_wallet − shop_wallet`: the sum of the mismatches' differences.
    pub difference: Cents,
    /// The part of `difference` on mismatches nobody explained.
    pub open_difference: Cents,
    /// Mismatches the owner has not explained.
    pub mismatches: i64,
    /// Mismatches the owner explained.
    pub explained: i64,
}

impl Totals {
    /// The totals of `lines`.
    pub fn of(lines: &[Line]) -> Self {
        let mut totals = Self::default();
        for line in lines {
            totals.add_money(line);
            totals.count_difference(line);
        }
        totals
    }

    /// Adds the money of `line`: what it paid, cost and moved on each side.
    pub fn add_money(&mut self, line: &Line) {
        if line.kind == LineKind::Purchase {
            self.purchases += 1;
            self.paid = add(self.paid, line.paid);
            self.refunded = add(self.refunded, line.refunded);
            self.tax = add(self.tax, line.tax);
            self.cost = add(self.cost, line.cost);
            self.margin = add(self.margin, line.margin());
        }
        match line.kind {
            LineKind::TopUp => self.topups = add(self.topups, line.shop_wallet),
            LineKind::OutsideCredit => {
                self.outside_credits = add(self.outside_credits, line.shop_wallet);
            }
            LineKind::Purchase | LineKind::Other => {}
        }
        self.shop_wallet = add(self.shop_wallet, line.shop_wallet);
        self.upstream_wallet = add(self.upstream_wallet, line.upstream_wallet);
        self.difference = Cents::new(
            self.upstream_wallet
                .get()
                .saturating_sub(self.shop_wallet.get()),
        );
    }

    /// Adds the money of `other` (its counts of differences are not added).
    pub fn add_money_of(&mut self, other: &Totals) {
        self.purchases += other.purchases;
        for (mine, theirs) in [
            (&mut self.paid, other.paid),
            (&mut self.refunded, other.refunded),
            (&mut self.tax, other.tax),
            (&mut self.cost, other.cost),
            (&mut self.margin, other.margin),
            (&mut self.topups, other.topups),
            (&mut self.outside_credits, other.outside_credits),
            (&mut self.shop_wallet, other.shop_wallet),
            (&mut self.upstream_wallet, other.upstream_wallet),
        ] {
            *mine = add(*mine, theirs);
        }
        self.difference = Cents::new(
            self.upstream_wallet
                .get()
                .saturating_sub(self.shop_wallet.get()),
        );
    }

    /// Counts `line` as an open or an explained difference, if it is one.
    pub fn count_difference(&mut self, line: &Line) {
        if line.is_open() {
            self.mismatches += 1;
            self.open_difference = add(self.open_difference, line.difference());
        } else if line.is_mismatch() {
            self.explained += 1;
        }
    }

    /// Both sides agree on every line, with nothing to explain.
    pub fn matches(&self) -> bool {
        self.closes() && self.explained == 0 && self.difference == Cents::ZERO
    }

    /// Every mismatch left is explained (or there is none): the period is closed.
    pub fn closes(&self) -> bool {
        self.mismatches == 0 && self.open_difference == Cents::ZERO
    }
}

/// Whether the console lists `line` whatever the period's size: a difference, or a credit from
/// outside the shop.
pub fn is_notable(line: &Line) -> bool {
    line.is_mismatch() || line.kind == LineKind::OutsideCredit
}

impl Report {
    /// The mismatches nobody explained.
    pub fn mismatches(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().filter(|l| l.is_open())
    }

    /// The mismatches the owner explained.
    pub fn explained(&self) -> impl Iterator<Item = &Line> {
        self.lines
            .iter()
            .filter(|l| l.is_mismatch() && l.explanation.is_some())
    }

    /// The period's newest `n` lines, in time order (lines whose time is unknown last).
    pub fn newest_lines(&self, n: usize) -> &[Line] {
        &self.lines[self.lines.len().saturating_sub(n)..]
    }

    /// The credits from outside the shop.
    pub fn outside_credits(&self) -> impl Iterator<Item = &Line> {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::OutsideCredit)
    }

    /// See [`Totals::matches`].
    pub fn matches(&self) -> bool {
        self.totals.matches()
    }

    /// See [`Totals::closes`].
    pub fn closes(&self) -> bool {
        self.totals.closes()
    }

    /// The report as the console shows it, with its newest `newest` lines.
    pub fn summary(&self, newest: usize) -> Summary {
        let mut summary = Summary::new(self.period);
        summary.totals = self.totals;
        summary.lines = self.lines.len();
        for line in self.lines.iter().filter(|l| is_notable(l)) {
            summary.keep_notable(line);
        }
        summary.newest = self.newest_lines(newest).to_vec();
        summary
    }
}

/// How many lines of each notable kind ([`is_notable`]) the console lists, the oldest first: a
/// period can have thousands of differences (a supplier account that something else uses
/// too), and every one of them is in the reconciliation CSV.
pub const NOTABLE_SHOWN: usize = 100;

/// A period's books as the console shows them, however many lines it has: the totals, the
/// first [`NOTABLE_SHOWN`] open differences, explained differences and credits from outside
/// the shop, and the newest lines. Made from the stored books of its days (`super::days`),
/// equal to [`Report::summary`] of the whole period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub period: Period,
    pub totals: Totals,
    /// How many lines the period has (every one is in the reconciliation CSV).
    pub lines: usize,
    /// The first open differences, in time order.
    pub open: Vec<Line>,
    /// The first explained differences, in time order.
    pub explained: Vec<Line>,
    /// The first credits from outside the shop, in time order.
    pub outside: Vec<Line>,
    /// How many credits from outside the shop the period has.
    pub outside_count: usize,
    /// The newest lines, in time order.
    pub newest: Vec<Line>,
}

impl Summary {
    pub fn new(period: Period) -> Self {
        Self {
            period,
            totals: Totals::default(),
            lines: 0,
            open: Vec::new(),
            explained: Vec::new(),
            outside: Vec::new(),
            outside_count: 0,
            newest: Vec::new(),
        }
    }

    /// Keeps a notable `line` (its explanation applied) in its lists while they have room, and
    /// counts the credits from outside the shop. The counts of differences are the totals'.
    pub fn keep_notable(&mut self, line: &Line) {
        let room = |list: &Vec<Line>| list.len() < NOTABLE_SHOWN;
        if line.kind == LineKind::OutsideCredit {
            self.outside_count += 1;
            if room(&self.outside) {
                self.outside.push(line.clone());
            }
        }
        if line.is_open() {
            if room(&self.open) {
                self.open.push(line.clone());
            }
        } else if line.is_mismatch() && room(&self.explained) {
            self.explained.push(line.clone());
        }
    }

    /// The first open differences.
    pub fn mismatches(&self) -> impl Iterator<Item = &Line> {
        self.open.iter()
    }

    /// The first explained differences.
    pub fn explained(&self) -> impl Iterator<Item = &Line> {
        self.explained.iter()
    }

    /// The first credits from outside the shop.
    pub fn outside_credits(&self) -> impl Iterator<Item = &Line> {
        self.outside.iter()
    }

    /// Open differences the console leaves to the CSV.
    pub fn open_not_shown(&self) -> usize {
        usize::try_from(self.totals.mismatches)
            .unwrap_or(0)
            .saturating_sub(self.open.len())
    }

    /// Explained differences the console leaves to the CSV.
    pub fn explained_not_shown(&self) -> usize {
        usize::try_from(self.totals.explained)
            .unwrap_or(0)
            .saturating_sub(self.explained.len())
    }

    /// Credits from outside the shop the console leaves to the CSV.
    pub fn outside_not_shown(&self) -> usize {
        self.outside_count.saturating_sub(self.outside.len())
    }

    /// See [`Totals::matches`].
    pub fn matches(&self) -> bool {
        self.totals.matches()
    }

    /// See [`Totals::closes`].
    pub fn closes(&self) -> bool {
        self.totals.closes()
    }

    /// The lines the console leaves to the CSV.
    pub fn lines_not_shown(&self) -> usize {
        self.lines.saturating_sub(self.newest.len())
    }
}

const ORDER_KINDS: &[&str] = &["reservation", "settlement", "release", "refund"];

/// The supplier's order status as the shop last saw it, in the owner's words.
fn supplier_status(raw: Option<&str>) -> String {
    raw.map_or_else(
        || "not known".to_string(),
        |raw| OrderStatus::parse(raw).label(),
    )
}

fn add(a: Cents, b: Cents) -> Cents {
    Cents::new(a.get().saturating_add(b.get()))
}

/// `upstream` in id order (stable, so an order listed twice stays twice): the report is then
/// the same whatever order upstream listed its items in, and whether they came from the
/// listings or the local copy.
fn in_id_order(upstream: &Upstream) -> Upstream {
    let mut sorted = upstream.clone();
    sorted.transactions.sort_by_key(|t| t.id);
    sorted.orders.sort_by(|a, b| a.id.cmp(&b.id));
    sorted
}

/// Matches `shop` against `upstream` and keeps the lines of `period`.
pub fn reconcile(period: Period, upstream: &Upstream, shop: &Shop) -> Report {
    let upstream = &in_id_order(upstream);
    let mut lines = purchase_lines(upstream, shop);
    lines.extend(topup_lines(upstream, shop));
    lines.extend(other_lines(upstream));
    lines.retain(|l| l.at_ms.is_none_or(|at| period.contains_ms(at)));
    for line in lines.iter_mut().filter(|l| l.is_mismatch()) {
        line.explanation = shop.explanations.get(&line.key).cloned();
    }
    lines.sort_by(|a, b| {
        (a.at_ms.is_none(), a.at_ms, &a.reference, &a.key).cmp(&(
            b.at_ms.is_none(),
            b.at_ms,
            &b.reference,
            &b.key,
        ))
    });
    let totals = Totals::of(&lines);
    Report {
        period,
        lines,
        totals,
    }
}

/// The transactions of each upstream order, by the order's index.
fn order_transactions(upstream: &Upstream) -> HashMap<usize, Vec<&BalanceTransaction>> {
    let mut by_reference: HashMap<&str, usize> = HashMap::new();
    for (i, o) in upstream.orders.iter().enumerate() {
        by_reference.entry(o.reference.as_str()).or_insert(i);
        by_reference.insert(o.id.as_str(), i);
    }
    let mut out: HashMap<usize, Vec<&BalanceTransaction>> = HashMap::new();
    for t in &upstream.transactions {
        if ORDER_KINDS.contains(&t.kind.as_str())
            && let Some(&i) = by_reference.get(t.reference.as_str())
        {
            out.entry(i).or_default().push(t);
        }
    }
    out
}

fn purchase_lines(upstream: &Upstream, shop: &Shop) -> Vec<Line> {
    let by_reference: HashMap<&str, usize> = shop
        .purchases
        .iter()
        .enumerate()
        .map(|(i, p)| (p.reference.as_str(), i))
        .collect();
    let by_order_id: HashMap<&str, usize> = shop
        .purchases
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.upstream_order_id.as_deref().map(|id| (id, i)))
        .collect();
    let mut transactions = order_transactions(upstream);
    let mut seen_purchases: HashSet<usize> = HashSet::new();
    let mut seen_order_ids: HashMap<&str, usize> = HashMap::new();
    let mut lines = Vec::new();
    for (i, order) in upstream.orders.iter().enumerate() {
        let txs = transactions.remove(&i).unwrap_or_default();
        let purchase = by_reference
            .get(order.reference.as_str())
            .or_else(|| by_order_id.get(order.id.as_str()))
            .copied();
        let repeat = seen_order_ids.insert(order.id.as_str(), i).is_some();
        let purchase = purchase.filter(|p| seen_purchases.insert(*p));
        let mut line = order_line(purchase.map(|p| &shop.purchases[p]), Some(order), &txs);
        if repeat {
            line.problems
                .push(format!("upstream lists order {} more than once", order.id));
        }
        lines.push(line);
    }
    for (i, p) in shop.purchases.iter().enumerate() {
        if !seen_purchases.contains(&i) && (p.paid_at_ms.is_some() || p.upstream_order_id.is_some())
        {
            lines.push(order_line(Some(p), None, &[]));
        }
    }
    lines
}

/// The line of one purchase and/or upstream order.
fn order_line(
    purchase: Option<&BookPurchase>,
    order: Option<&Order>,
    txs: &[&BalanceTransaction],
) -> Line {
    let reference = order
        .map(|o| o.id.clone())
        .or_else(|| purchase.and_then(|p| p.upstream_order_id.clone()))
        .unwrap_or_default();
    let key = match purchase {
        Some(p) if reference.is_empty() => format!("purchase:{}", p.id),
        _ => format!("order:{reference}"),
    };
    let mut line = Line::new(LineKind::Purchase, key, &reference);
    line.upstream_status = order.map(|o| o.status.as_str().to_string());
    for t in txs {
        line.add_transaction(t);
    }
    let reservations = txs.iter().filter(|t| t.kind == "reservation").count();
    let gave_back = txs
        .iter()
        .find(|t| t.kind == "release" || t.kind == "refund")
        .map(|t| t.kind.clone());
    let Some(p) = purchase else {
        line.at_ms = order.and_then(|o| upstream_time_ms(&o.created_at));
        if let Some(o) = order {
            line.problems.push(format!(
                "upstream order {} (reference {:?}, {}, {}) has no purchase in the shop",
                o.id,
                o.reference,
                o.status.as_str(),
                o.price_cents.cents()
            ));
            if line.at_ms.is_none() {
                line.problems
                    .push(format!("its time {:?} cannot be read", o.created_at));
            }
        }
        return line;
    };
    line.at_ms = Some(p.paid_at_ms.unwrap_or(p.created_at_ms));
    line.purchase_id = Some(p.id.clone());
    line.checkout_id = Some(p.checkout_id.clone());
    let takings = p.takings();
    line.paid = takings.paid;
    line.refunded = takings.refunded;
    line.tax = takings.tax;
    line.cost = takings.supplier_cost;
    let returned = gives_cost_back(p.upstream_status.as_deref());
    line.shop_wallet = Cents::new(line.cost.get().saturating_neg());
    match (order, p.upstream_order_id.as_deref()) {
        (None, Some(id)) => line.problems.push(format!(
            "the shop placed upstream order {id}, which upstream does not list"
        )),
        (Some(o), None) => line.problems.push(format!(
            "upstream has order {} for this purchase; the shop does not record it as placed",
            o.id
        )),
        (Some(o), Some(id)) if o.id != id => line.problems.push(format!(
            "upstream order {} carries this purchase's reference; the shop recorded order {id}",
            o.id
        )),
        _ => {}
    }
    if let Some(o) = order {
        match reservations {
            1 => {}
            0 => line
                .problems
                .push("no debit (reservation) for this order".to_string()),
            n => line
                .problems
                .push(format!("{n} debits (reservations) for one order")),
        }
        if o.price_cents.cents().get() != p.cost_cents {
            line.problems.push(format!(
                "upstream's price is {}, the shop's cost {}",
                o.price_cents.cents(),
                Cents::new(p.cost_cents)
            ));
        }
    }
    if line.problems.is_empty() && line.difference() != Cents::ZERO {
        let why = match (&gave_back, returned) {
            (Some(kind), false) => format!(
                "the supplier gave the cost back ({kind}); the shop still counts it (the supplier's status as the shop last saw it: {})",
                supplier_status(p.upstream_status.as_deref())
            ),
            (None, true) => format!(
                "the shop expects the cost back (the supplier's status: {}); the supplier has not returned it",
                supplier_status(p.upstream_status.as_deref())
            ),
            _ => format!(
                "the wallet moved {} for this order; the shop's books expect {}",
                line.upstream_wallet, line.shop_wallet
            ),
        };
        line.problems.push(why);
    }
    line
}

fn topup_lines(upstream: &Upstream, shop: &Shop) -> Vec<Line> {
    let by_session: HashMap<&str, &BookTopup> = shop
        .topups
        .iter()
        .map(|t| (t.session_id.as_str(), t))
        .collect();
    let mut credited: HashSet<&str> = HashSet::new();
    let mut lines = Vec::new();
    for t in upstream.transactions.iter().filter(|t| t.kind == "credit") {
        let topup = by_session.get(t.reference.as_str());
        let kind = LineKind::of_credit(topup.is_some(), t.available_delta_cents);
        let mut line = Line::new(kind, transaction_key(t), &t.reference);
        line.add_transaction(t);
        line.at_ms = upstream_time_ms(&t.created_at);
        match topup {
            None if kind == LineKind::OutsideCredit => line.shop_wallet = t.available_delta_cents,
            None => line.problems.push(format!(
                "a credit of {} that matches no top-up the shop started",
                t.available_delta_cents
            )),
            Some(topup) => {
                line.at_ms = line.at_ms.or(topup.confirmed_at_ms);
                if !credited.insert(topup.session_id.as_str()) {
                    line.problems
                        .push("a second credit for the same top-up".to_string());
                } else if topup.confirmed_at_ms.is_some() {
                    line.shop_wallet = Cents::new(topup.amount_cents);
                    if topup.amount_cents != t.available_delta_cents.get() {
                        line.problems.push(format!(
                            "credited {}, the top-up was for {}",
                            t.available_delta_cents,
                            Cents::new(topup.amount_cents)
                        ));
                    }
                } else {
                    line.problems.push(
                        "credited upstream; the shop has not confirmed the top-up yet (the wallet page does)"
                            .to_string(),
                    );
                }
            }
        }
        if line.at_ms.is_none() {
            line.problems
                .push(format!("its time {:?} cannot be read", t.created_at));
        }
        lines.push(line);
    }
    for topup in &shop.topups {
        if let Some(confirmed) = topup.confirmed_at_ms
            && !credited.contains(topup.session_id.as_str())
        {
            let mut line = Line::new(
                LineKind::TopUp,
                format!("topup:{}", topup.session_id),
                &topup.session_id,
            );
            line.at_ms = Some(confirmed);
            line.shop_wallet = Cents::new(topup.amount_cents);
            line.problems
                .push("the shop confirmed this top-up; upstream lists no credit for it".into());
            lines.push(line);
        }
    }
    lines
}

/// Transactions neither an order's nor a credit: unknown types, and order movements for no
/// order upstream lists.
fn other_lines(upstream: &Upstream) -> Vec<Line> {
    let order_refs: HashSet<&str> = upstream
        .orders
        .iter()
        .flat_map(|o| [o.id.as_str(), o.reference.as_str()])
        .collect();
    let mut lines = Vec::new();
    for t in &upstream.transactions {
        let known_order_kind = ORDER_KINDS.contains(&t.kind.as_str());
        if t.kind == "credit" || known_order_kind && order_refs.contains(t.reference.as_str()) {
            continue;
        }
        let mut line = Line::new(LineKind::Other, transaction_key(t), &t.reference);
        line.add_transaction(t);
        line.at_ms = upstream_time_ms(&t.created_at);
        line.problems.push(if known_order_kind {
            format!(
                "a {} of {} for {:?}, which is no order upstream lists",
                t.kind, t.available_delta_cents, t.reference
            )
        } else {
            format!(
                "transaction {} of unclassified type {:?} ({} available, {} reserved)",
                t.id, t.kind, t.available_delta_cents, t.reserved_delta_cents
            )
        });
        if line.at_ms.is_none() {
            line.problems
                .push(format!("its time {:?} cannot be read", t.created_at));
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::{ApiAmount, OrderStatus};

    const DAY: &str = "2026-11-10";

    fn at(hour: u32) -> String {
        format!("{DAY}T{hour:02}:00:00Z")
    }

    fn ms(hour: u32) -> i64 {
        upstream_time_ms(&at(hour)).expect("time")
    }

    fn period() -> Period {
        Period::parse(DAY, DAY).expect("period")
    }

    fn tx(
        id: i64,
        kind: &str,
        available: i64,
        reserved: i64,
        reference: &str,
    ) -> BalanceTransaction {
        BalanceTransaction {
            id,
            kind: kind.into(),
            available_delta_cents: Cents::new(available),
            reserved_delta_cents: Cents::new(reserved),
            reference: reference.into(),
            created_at: at(10),
        }
    }

    fn order(id: &str, reference: &str, status: &str, price: i64) -> Order {
        Order {
            id: id.into(),
            reference: reference.into(),
            status: OrderStatus::parse(status),
            price_cents: ApiAmount::try_from(price).expect("amount"),
            currency: "USD".into(),
            created_at: at(10),
            esim_id: None,
        }
    }

    fn purchase(
        id: &str,
        order: Option<&str>,
        upstream_status: &str,
        price: i64,
        cost: i64,
    ) -> BookPurchase {
        BookPurchase {
            id: id.into(),
            checkout_id: id.into(),
            status: "fulfilled".into(),
            plan_id: "p1-base".into(),
            reference: format!("ref-{id}"),
            upstream_order_id: order.map(str::to_string),
            upstream_status: Some(upstream_status.into()),
            price_cents: price,
            charged_cents: price,
            tax_cents: 0,
            cost_cents: cost,
            paid_at_ms: Some(ms(9)),
            created_at_ms: ms(9),
            refunded_cents: 0,
        }
    }

    /// A fulfilled sale, a failed one refunded to the buyer, and a verified top-up.
    fn matching() -> (Upstream, Shop) {
        let mut failed = purchase("b", Some("o2"), "failed", 500, 300);
        failed.refunded_cents = 500;
        let upstream = Upstream {
            transactions: vec![
                tx(1, "credit", 10_000, 0, "cs_1"),
                tx(2, "reservation", -700, 700, "o1"),
                tx(3, "settlement", 0, -700, "o1"),
                tx(4, "reservation", -300, 300, "o2"),
                tx(5, "release", 300, -300, "o2"),
            ],
            orders: vec![
                order("o1", "ref-a", "fulfilled", 700),
                order("o2", "ref-b", "failed", 300),
            ],
        };
        let shop = Shop {
            purchases: vec![purchase("a", Some("o1"), "fulfilled", 1000, 700), failed],
            topups: vec![BookTopup {
                id: 1,
                session_id: "cs_1".into(),
                amount_cents: 10_000,
                created_at_ms: ms(8),
                confirmed_at_ms: Some(ms(10)),
            }],
            explanations: HashMap::new(),
        };
        (upstream, shop)
    }

    #[test]
    fn matching_books_reconcile_to_the_cent() {
        let (upstream, shop) = matching();
        let report = reconcile(period(), &upstream, &shop);
        assert!(
            report.matches(),
            "{:?}",
            report.mismatches().collect::<Vec<_>>()
        );
        let t = report.totals;
        assert_eq!(t.purchases, 2);
        assert_eq!(
            (t.paid.get(), t.refunded.get(), t.cost.get()),
            (1500, 500, 700)
        );
        assert_eq!(t.margin.get(), 300);
        assert_eq!(t.topups.get(), 10_000);
        assert_eq!(t.upstream_wallet, t.shop_wallet);
        assert_eq!(t.upstream_wallet.get(), 10_000 - 700);
    }

    #[test]
    fn the_newest_lines_are_the_last_in_time_order() {
        let (upstream, shop) = matching();
        let report = reconcile(period(), &upstream, &shop);
        let all = report.lines.len();
        assert!(all >= 3, "{all} lines");
        assert_eq!(report.newest_lines(all + 5), report.lines.as_slice());
        assert_eq!(report.newest_lines(2), &report.lines[all - 2..]);
        assert!(report.newest_lines(0).is_empty());
        let times: Vec<_> = report.newest_lines(2).iter().map(|l| l.at_ms).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    }

    #[test]
    fn each_upstream_order_of_a_checkout_matches_its_own_unit_under_the_buyers_number() {
        // The two sales of `matching` as two eSIMs of one checkout, `a`: the second failed.
        let (upstream, mut shop) = matching();
        shop.purchases[1].id = "a-2".into();
        shop.purchases[1].reference = "ref-a-2".into();
        shop.purchases[1].checkout_id = "a".into();
        let mut upstream = upstream;
        upstream.orders[1].reference = "ref-a-2".into();
        let report = reconcile(period(), &upstream, &shop);
        assert!(
            report.matches(),
            "{:?}",
            report.mismatches().collect::<Vec<_>>()
        );
        assert_eq!(report.totals.purchases, 2);
        for (order, unit) in [("o1", "a"), ("o2", "a-2")] {
            let line = report
                .lines
                .iter()
                .find(|l| l.reference == order)
                .unwrap_or_else(|| panic!("a line for {order}"));
            assert_eq!(line.purchase_id.as_deref(), Some(unit), "{order}");
            assert_eq!(
                line.order_number(),
                Some(crate::domain::purchase::order_number("a")),
                "{order} is named by the buyer's order number"
            );
        }
    }

    #[test]
    fn an_order_with_no_purchase_is_exactly_one_mismatch_with_its_amount() {
        let (mut upstream, shop) = matching();
        upstream.orders.push(order("o9", "stranger", "paid", 250));
        upstream
            .transactions
            .push(tx(6, "reservation", -250, 250, "o9"));
        let report = reconcile(period(), &upstream, &shop);
        let found: Vec<&Line> = report.mismatches().collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].reference, "o9");
        assert!(found[0].summary().contains("has no purchase in the shop"));
        assert_eq!(report.totals.difference.get(), -250);
    }

    #[test]
    fn double_debits_missing_orders_and_unknown_types_are_named() {
        let (mut upstream, mut shop) = matching();
        upstream
            .transactions
            .push(tx(7, "reservation", -700, 700, "o1"));
        upstream.transactions.push(tx(8, "bonus", 42, 0, "promo"));
        shop.purchases
            .push(purchase("c", Some("o404"), "paid", 100, 80));
        let report = reconcile(period(), &upstream, &shop);
        let texts: Vec<String> = report.mismatches().map(Line::summary).collect();
        assert_eq!(texts.len(), 3, "{texts:#?}");
        assert!(texts.iter().any(|t| t.contains("2 debits")));
        assert!(
            texts
                .iter()
                .any(|t| t.contains("unclassified type \"bonus\""))
        );
        assert!(texts.iter().any(|t| t.contains("o404")));
        assert_eq!(report.totals.difference.get(), -700 + 42 + 80);
    }

    #[test]
    fn a_release_the_shop_has_not_seen_and_an_unconfirmed_top_up_are_mismatches() {
        let (upstream, mut shop) = matching();
        shop.purchases[1].upstream_status = Some("provisioning".into());
        shop.topups[0].confirmed_at_ms = None;
        let report = reconcile(period(), &upstream, &shop);
        let texts: Vec<String> = report.mismatches().map(Line::summary).collect();
        assert_eq!(texts.len(), 2, "{texts:#?}");
        assert!(
            texts
                .iter()
                .any(|t| t.contains("gave the cost back (release)"))
        );
        assert!(texts.iter().any(|t| t.contains("not confirmed")));
    }

    #[test]
    fn other_days_are_left_out_and_unreadable_times_are_kept() {
        let (mut upstream, mut shop) = matching();
        shop.purchases[0].paid_at_ms = Some(ms(9) - 86_400_000);
        let mut odd = tx(9, "mystery", 1, 0, "x");
        odd.created_at = "last tuesday".into();
        upstream.transactions.push(odd);
        let report = reconcile(period(), &upstream, &shop);
        assert!(
            report
                .lines
                .iter()
                .all(|l| l.purchase_id.as_deref() != Some("a"))
        );
        let unreadable: Vec<&Line> = report.lines.iter().filter(|l| l.at_ms.is_none()).collect();
        assert_eq!(unreadable.len(), 1);
        assert!(unreadable[0].summary().contains("cannot be read"));
    }

    #[test]
    fn credits_the_shop_did_not_start_are_their_own_section_not_mismatches() {
        let (mut upstream, shop) = matching();
        upstream
            .transactions
            .push(tx(10, "credit", 50_000, 0, "opening-balance"));
        upstream
            .transactions
            .push(tx(11, "credit", 2_500, 0, "bank transfer 2026-11"));
        let report = reconcile(period(), &upstream, &shop);
        assert!(
            report.matches(),
            "{:?}",
            report.mismatches().collect::<Vec<_>>()
        );
        let outside: Vec<&Line> = report.outside_credits().collect();
        assert_eq!(outside.len(), 2);
        assert!(
            outside
                .iter()
                .all(|l| l.kind.label() == "Credit from outside the shop")
        );
        let opening = outside
            .iter()
            .find(|l| l.reference == "opening-balance")
            .expect("the opening credit");
        assert_eq!(opening.key, "transaction:10");
        assert_eq!(opening.upstream_wallet.get(), 50_000);
        assert_eq!(report.totals.outside_credits.get(), 52_500);
        assert_eq!(
            report.totals.topups.get(),
            10_000,
            "top-ups stay the shop's own"
        );
        assert_eq!(report.totals.upstream_wallet, report.totals.shop_wallet);
    }

    #[test]
    fn a_credit_that_takes_money_away_and_names_no_top_up_is_still_a_mismatch() {
        let (mut upstream, shop) = matching();
        upstream
            .transactions
            .push(tx(12, "credit", -400, 0, "chargeback"));
        let report = reconcile(period(), &upstream, &shop);
        let found: Vec<&Line> = report.mismatches().collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, LineKind::TopUp);
        assert!(found[0].summary().contains("matches no top-up"));
        assert_eq!(report.outside_credits().count(), 0);
    }

    #[test]
    fn an_explained_mismatch_is_listed_with_its_note_and_the_period_closes() {
        let (mut upstream, mut shop) = matching();
        upstream.orders.push(order("o9", "stranger", "paid", 250));
        upstream
            .transactions
            .push(tx(6, "reservation", -250, 250, "o9"));
        upstream.transactions.push(tx(8, "bonus", 42, 0, "promo"));
        let note = Explanation {
            note: "Test order placed by hand in the supplier's portal".into(),
            by: "owner@example.com".into(),
            at_ms: ms(12),
        };
        shop.explanations.insert("order:o9".into(), note.clone());
        shop.explanations
            .insert("transaction:999".into(), note.clone());

        let report = reconcile(period(), &upstream, &shop);
        assert!(!report.closes(), "the bonus is still open");
        assert!(!report.matches());
        let open: Vec<&Line> = report.mismatches().collect();
        assert_eq!(open.len(), 1, "{open:?}");
        assert_eq!(open[0].key, "transaction:8");
        let explained: Vec<&Line> = report.explained().collect();
        assert_eq!(explained.len(), 1);
        assert_eq!(explained[0].reference, "o9");
        assert_eq!(explained[0].explanation.as_ref(), Some(&note));
        assert_eq!((report.totals.mismatches, report.totals.explained), (1, 1));
        assert_eq!(report.totals.open_difference.get(), 42);
        assert_eq!(report.totals.difference.get(), 42 - 250);

        shop.explanations.insert("transaction:8".into(), note);
        let report = reconcile(period(), &upstream, &shop);
        assert!(report.closes());
        assert!(!report.matches(), "explained is not the same as matching");
        assert_eq!(report.mismatches().count(), 0);
        assert_eq!(report.explained().count(), 2);
    }

    #[test]
    fn an_explanation_never_lands_on_a_line_that_matches() {
        let (upstream, mut shop) = matching();
        shop.explanations.insert(
            "order:o1".into(),
            Explanation {
                note: "n".into(),
                by: "o".into(),
                at_ms: 0,
            },
        );
        let report = reconcile(period(), &upstream, &shop);
        assert!(report.matches());
        assert!(report.lines.iter().all(|l| l.explanation.is_none()));
    }

    #[test]
    fn line_keys_have_their_shape() {
        for good in ["order:o1", "transaction:42", "topup:cs_1", "purchase:abc"] {
            assert!(is_line_key(good), "{good}");
        }
        for bad in [
            "",
            "order:",
            "o1",
            "row:3",
            &format!("order:{}", "x".repeat(201)),
        ] {
            assert!(!is_line_key(bad), "{bad}");
        }
    }
}
