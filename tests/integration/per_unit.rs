//! What a suite that buys orders of several eSIMs proves once its run is quiet, unit by unit:
//! each unit has exactly one upstream order (by its reference, which carries its idempotency
//! key's order); no unit was placed after its refund; a unit upstream failed is refunded its
//! own share, once, with the true cause, and every other unit is delivered; the refunds of one
//! payment never add up to more than it took; and every traveller given an address gets one
//! email for their delivered eSIM (a resend after a crash is the same message: same
//! Message-ID) and none for a failed one. Used by the crash, fail-point, fault-matrix and
//! replica suites.

use std::collections::{BTreeMap, HashMap};

use storefront::db::{Db, DbError, outbox, purchases, refunds};
use storefront::domain::job::JobKind;
use storefront::domain::purchase::PurchaseStatus;

use crate::consumer::{BeforePay, before_pay};
use crate::fixtures::as_id;

/// What one buyer of a suite orders: how many eSIMs, and for whom (per eSIM, a name and an
/// address for the traveller's own link, either optional).
#[derive(Debug, Clone)]
pub struct Wanted {
    pub quantity: usize,
    pub travellers: Vec<(Option<String>, Option<String>)>,
}

impl Wanted {
    /// One eSIM for the buyer: the checkout form without a quantity, as before several.
    pub fn one() -> Self {
        Self {
            quantity: 1,
            travellers: Vec::new(),
        }
    }

    /// The mix the suites buy, buyer `n` of run `run`: one eSIM, three, two, in turn. Of an
    /// order of several, the second eSIM goes to a named traveller with an address of their
    /// own (unique to the run), the third to a named traveller without one.
    pub fn mix(n: usize, run: &str) -> Self {
        let quantity = [1, 3, 2][n % 3];
        if quantity == 1 {
            return Self::one();
        }
        let travellers = (1..=quantity)
            .map(|index| match index {
                2 => (
                    Some("Ben".to_string()),
                    Some(format!("ben{n}.{run}@example.com")),
                ),
                3 => (Some("Cleo".to_string()), None),
                _ => (None, None),
            })
            .collect();
        Self {
            quantity,
            travellers,
        }
    }

    /// The checkout form's fields for it, beyond the plan, the buyer's address and the boxes.
    pub fn form(&self) -> Vec<(String, String)> {
        if self.quantity == 1 && self.travellers.is_empty() {
            return Vec::new();
        }
        let mut fields = vec![("quantity".to_string(), self.quantity.to_string())];
        for (n, (name, email)) in self.travellers.iter().enumerate() {
            let n = n + 1;
            if let Some(name) = name {
                fields.push((format!("traveller_name_{n}"), name.clone()));
            }
            if let Some(email) = email {
                fields.push((format!("traveller_email_{n}"), email.clone()));
            }
        }
        fields
    }

    /// The order as bought: checkout `checkout`, its eSIMs `failing` (1-based) failed upstream.
    pub fn bought(&self, checkout: &str, failing: &[usize]) -> Bought {
        Bought {
            checkout: checkout.to_string(),
            quantity: self.quantity,
            failing: failing.to_vec(),
            travellers: (1..=self.quantity)
                .map(|index| {
                    self.travellers
                        .get(index - 1)
                        .and_then(|(_, email)| email.clone())
                })
                .collect(),
        }
    }
}

/// One order as the suite bought it: the checkout (its first unit's id), how many eSIMs, which
/// of them (1-based) upstream was told to fail, and the traveller's address per unit, if the
/// buyer gave one.
#[derive(Debug, Clone)]
pub struct Bought {
    pub checkout: String,
    pub quantity: usize,
    pub failing: Vec<usize>,
    pub travellers: Vec<Option<String>>,
}

impl Bought {
    fn traveller(&self, index: usize) -> Option<&str> {
        self.travellers
            .get(index.saturating_sub(1))
            .and_then(|t| t.as_deref())
    }
}

/// One upstream order: its reference, status and when upstream accepted it.
#[derive(Debug, Clone)]
pub struct UpstreamOrder {
    pub reference: String,
    pub status: String,
    pub created_ms: i64,
}

impl UpstreamOrder {
    pub fn new(reference: &str, status: &str, created_at: &str) -> Self {
        let created_ms =
            time::OffsetDateTime::parse(created_at, &time::format_description::well_known::Rfc3339)
                .map_or(i64::MAX, |t| {
                    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
                });
        Self {
            reference: reference.to_string(),
            status: status.to_string(),
            created_ms,
        }
    }
}

impl From<&storefront::sandbox::wire::Order> for UpstreamOrder {
    fn from(order: &storefront::sandbox::wire::Order) -> Self {
        Self::new(&order.reference, &order.status, &order.created_at)
    }
}

/// Every order of a sandbox in another process, page by page (`GET /orders`).
pub async fn upstream_orders(client: &reqwest::Client, api: &str, key: &str) -> Vec<UpstreamOrder> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{api}/orders?limit=100");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let page: serde_json::Value = client
            .get(&url)
            .bearer_auth(key)
            .send()
            .await
            .expect("orders")
            .json()
            .await
            .expect("orders json");
        for order in page["data"].as_array().expect("a page of orders") {
            let text = |field: &str| order[field].as_str().unwrap_or_default().to_string();
            all.push(UpstreamOrder::new(
                &text("reference"),
                &text("status"),
                &text("createdAt"),
            ));
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => return all,
        }
    }
}

/// Tells a Partner API sandbox in another process to fail the order placed under `reference`.
pub async fn fail_reference(client: &reqwest::Client, sandbox: &str, key: &str, reference: &str) {
    let res = client
        .post(format!("{sandbox}/_sandbox/references/{reference}/outcome"))
        .bearer_auth(key)
        .header("content-type", "application/json")
        .body(r#"{"outcome": "failed"}"#)
        .send()
        .await
        .expect("sandbox control");
    assert!(res.status().is_success(), "{reference}: {}", res.status());
}

/// Run before an order's payment: tells the sandbox at `sandbox` (another process, `key`) to
/// fail the eSIMs `doomed` (1-based) of the checkout, by their references in `db`.
pub fn fail_before_pay(
    client: &reqwest::Client,
    db: &Db,
    (sandbox, key): (&str, &str),
    doomed: &[usize],
) -> BeforePay {
    let (client, db, sandbox, key) = (
        client.clone(),
        db.clone(),
        sandbox.to_string(),
        key.to_string(),
    );
    let doomed = doomed.to_vec();
    before_pay(move |checkout: String| {
        let (client, db, sandbox, key) = (client.clone(), db.clone(), sandbox.clone(), key.clone());
        let doomed = doomed.clone();
        async move {
            let references = references(&db, &checkout).await;
            for index in doomed {
                fail_reference(&client, &sandbox, &key, &references[index - 1]).await;
            }
        }
    })
}

/// The references of a checkout's units, in unit order.
pub async fn references(db: &Db, checkout: &str) -> Vec<String> {
    let checkout = as_id(checkout);
    db.run(move |c| purchases::units_of(c, &checkout))
        .await
        .expect("units")
        .into_iter()
        .map(|unit| unit.reference)
        .collect()
}

/// The buyer's page of `order` shows each eSIM settled as it should be: delivered, or
/// refunded where upstream failed it.
pub fn page_settled(html: &str, order: &Bought) -> bool {
    let refunded = order.failing.len();
    if order.quantity == 1 {
        let want = if refunded == 1 {
            "refunded"
        } else {
            "fulfilled"
        };
        return html.contains(&format!("data-status=\"{want}\""));
    }
    html.matches("data-unit-status=\"fulfilled\"").count() == order.quantity - refunded
        && html.matches("data-unit-status=\"refunded\"").count() == refunded
}

/// Waits until no outbox job of the shop is running or due within a second (the emails sent
/// after the last eSIM is delivered included); panics after `within`.
pub async fn wait_quiet(db: &Db, within: std::time::Duration) {
    use diesel::prelude::*;
    use storefront::db::schema::outbox_jobs as j;
    let started = std::time::Instant::now();
    loop {
        let busy: i64 = db
            .run(|c| {
                let soon = storefront::db::now_ms() + 1_000;
                Ok::<_, DbError>(
                    j::table
                        .filter(
                            j::state
                                .eq(outbox::RUNNING)
                                .or(j::state.eq(outbox::QUEUED).and(j::run_at_ms.lt(soon))),
                        )
                        .count()
                        .get_result(c)?,
                )
            })
            .await
            .unwrap_or(1);
        if busy == 0 {
            return;
        }
        assert!(
            started.elapsed() < within,
            "{busy} outbox jobs still busy after {within:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// What the run came to.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub orders: usize,
    pub units: usize,
    pub delivered: usize,
    pub refunded: usize,
    pub traveller_emails: usize,
}

/// A unit as the shop's database holds it at the end.
struct Unit {
    id: String,
    index: usize,
    status: PurchaseStatus,
    reference: String,
    price: i64,
    payment: Option<String>,
    esim: bool,
    refund: Option<refunds::RefundRow>,
    refund_jobs: usize,
}

async fn units_of(db: &Db, checkout: &str) -> Vec<Unit> {
    let checkout = as_id(checkout);
    db.run(move |c| {
        purchases::units_of(c, &checkout)?
            .into_iter()
            .map(|unit| {
                let refund = refunds::refund_for(c, &unit.id)?;
                let refund_jobs = outbox::jobs_for_purchase(c, &unit.id)?
                    .iter()
                    .filter(|j| j.kind == JobKind::Refund.as_str())
                    .count();
                Ok::<_, DbError>(Unit {
                    id: unit.id.to_string(),
                    index: usize::try_from(unit.unit_index).unwrap_or(0),
                    status: unit.status,
                    reference: unit.reference,
                    price: unit.price_cents.get(),
                    payment: unit.payment_reference,
                    esim: unit.esim_id.is_some(),
                    refund,
                    refund_jobs,
                })
            })
            .collect()
    })
    .await
    .expect("the units")
}

/// Distinct messages (by Message-ID) addressed to `to` among `mail` (raw messages).
fn messages_to(mail: &[String], to: &str) -> usize {
    let to = to.to_lowercase();
    let mut ids: Vec<String> = mail
        .iter()
        .filter(|raw| {
            raw.to_lowercase()
                .lines()
                .any(|l| l.starts_with("to: ") && l.contains(&to))
        })
        .map(|raw| {
            raw.lines()
                .find(|l| l.to_lowercase().starts_with("message-id:"))
                .unwrap_or(raw)
                .to_string()
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids.len()
}

/// Checks every unit of `bought` against `upstream` (all orders upstream holds) and, where the
/// suite kept them, `mail` (every raw message the shop sent). `Err` lists every broken promise.
pub async fn judge(
    db: &Db,
    bought: &[Bought],
    upstream: &[UpstreamOrder],
    mail: Option<&[String]>,
) -> Result<Tally, String> {
    let mut wrong = Vec::new();
    let mut tally = Tally {
        orders: bought.len(),
        ..Tally::default()
    };
    let mut by_reference: HashMap<&str, Vec<&UpstreamOrder>> = HashMap::new();
    for order in upstream {
        by_reference
            .entry(order.reference.as_str())
            .or_default()
            .push(order);
    }
    let mut known = Vec::new();
    let mut payments: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for order in bought {
        let units = units_of(db, &order.checkout).await;
        if units.len() != order.quantity {
            wrong.push(format!(
                "{}: {} units, not {}",
                order.checkout,
                units.len(),
                order.quantity
            ));
        }
        for unit in &units {
            tally.units += 1;
            known.push(unit.reference.clone());
            let name = format!("{} (eSIM {} of {})", unit.id, unit.index, order.quantity);
            let placed = by_reference
                .get(unit.reference.as_str())
                .cloned()
                .unwrap_or_default();
            if placed.len() != 1 {
                wrong.push(format!("{name}: {} upstream orders, not 1", placed.len()));
            }
            if let Some(payment) = &unit.payment {
                let entry = payments.entry(payment.clone()).or_default();
                entry.0 += unit.price;
                entry.1 += unit
                    .refund
                    .as_ref()
                    .filter(|r| r.is_open())
                    .map_or(0, |r| r.amount_cents);
            } else {
                wrong.push(format!("{name}: never paid"));
            }
            if let (Some(refund), Some(placed)) = (&unit.refund, placed.first()) {
                // Upstream stamps whole seconds, rounded down: an order placed before the
                // refund is never stamped after it.
                if placed.created_ms > refund.created_at_ms {
                    wrong.push(format!(
                        "{name}: placed at {} after its refund at {}",
                        placed.created_ms, refund.created_at_ms
                    ));
                }
            }
            let traveller = order.traveller(unit.index);
            let emails = match (mail, traveller) {
                (Some(mail), Some(to)) => Some(messages_to(mail, to)),
                _ => None,
            };
            if order.failing.contains(&unit.index) {
                tally.refunded += 1;
                if unit.status != PurchaseStatus::Refunded {
                    wrong.push(format!("{name}: failed upstream, ended {}", unit.status));
                }
                if placed.first().is_some_and(|o| o.status != "failed") {
                    wrong.push(format!("{name}: its upstream order is not failed"));
                }
                match &unit.refund {
                    Some(refund)
                        if refund.amount_cents == unit.price
                            && refund.status == "succeeded"
                            && refund.cause == "delivery_failed"
                            && !refund.keeps_cost => {}
                    other => wrong.push(format!(
                        "{name}: refund {other:?}, not its share of {} for a failed delivery",
                        unit.price
                    )),
                }
                if unit.refund_jobs != 1 {
                    wrong.push(format!("{name}: {} refund jobs, not 1", unit.refund_jobs));
                }
                if emails.is_some_and(|n| n != 0) {
                    wrong.push(format!("{name}: its traveller was told it is ready"));
                }
            } else {
                tally.delivered += 1;
                if unit.status != PurchaseStatus::Fulfilled || !unit.esim {
                    wrong.push(format!("{name}: ended {}, not delivered", unit.status));
                }
                if placed.first().is_some_and(|o| o.status != "fulfilled") {
                    wrong.push(format!("{name}: its upstream order is not fulfilled"));
                }
                if unit.refund.is_some() || unit.refund_jobs != 0 {
                    wrong.push(format!("{name}: delivered, yet refunded {:?}", unit.refund));
                }
                if let Some(n) = emails {
                    tally.traveller_emails += n;
                    if n != 1 {
                        wrong.push(format!("{name}: its traveller got {n} emails, not 1"));
                    }
                }
            }
        }
    }
    for (payment, (paid, refunded)) in &payments {
        if refunded > paid {
            wrong.push(format!(
                "{payment}: refunds of {refunded} beyond the {paid} paid"
            ));
        }
    }
    let strays: Vec<&str> = upstream
        .iter()
        .map(|o| o.reference.as_str())
        .filter(|r| !known.iter().any(|k| k == r))
        .collect();
    if !strays.is_empty() {
        wrong.push(format!("upstream orders of no unit: {strays:?}"));
    }
    if wrong.is_empty() {
        Ok(tally)
    } else {
        Err(wrong.join("\n"))
    }
}

/// Every file of `dir` as text (the `.eml` files of a mail folder).
pub fn read_mail(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}
