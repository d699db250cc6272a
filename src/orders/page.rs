//! What the consumer's order page reads: a purchase by its id and what proves the visitor may
//! see it (a private-link token, or a "My eSIMs" session of the buyer's address), its timeline
//! and, once fulfilled, its decrypted installation, in one trip to the pool.

use crate::db::purchases::units_of;
use crate::db::purchases::{Purchase, PurchaseEvent};
use crate::db::travellers::{self, TravellerRow};
use crate::db::{DbError, checkouts, now_ms};
use crate::domain::PurchaseId;
use crate::domain::purchase::PurchaseStatus;
use crate::domain::trip::TripDate;
use crate::orders::Orders;
use crate::orders::installation::{
    InstallationDetails, InstallationError, InstallationKeys, load_installation_with,
};
use crate::orders::links::{self, LinkPolicy};
use crate::orders::my_esims::{self, Customer};
use crate::orders::receipts;

#[derive(Debug, thiserror::Error)]
pub enum OrderPageError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error(transparent)]
    Installation(#[from] InstallationError),
}

/// A purchase as its order page shows it.
pub struct OrderRecord {
    pub purchase: Purchase,
    /// Oldest first.
    pub events: Vec<PurchaseEvent>,
    /// Read only when fulfilled and asked for.
    pub installation: Option<InstallationDetails>,
    /// Every unit of the checkout, in order, when the proof is the buyer's link to a checkout
    /// of several eSIMs; empty otherwise (the page then shows `purchase` alone).
    pub units: Vec<UnitRecord>,
    /// What the page's eSIMs cost the buyer (all of them on the buyer's page of several, else
    /// `purchase`), with tax when it was added on top.
    pub charged: crate::domain::Cents,
    /// Where `purchase` stands in a checkout of several eSIMs, when the page shows that unit
    /// alone (a traveller's link).
    pub place: Option<UnitPlace>,
    /// The visitor opened it as its buyer and its checkout has a receipt to show.
    pub receipt: bool,
    /// The departure day the buyer gave, when the buyer's link opened the page (only that
    /// link may change it): `Some(None)` without a date.
    pub trip: Option<Option<TripDate>>,
}

/// One unit of a checkout as the buyer's page lists it.
pub struct UnitRecord {
    pub purchase: Purchase,
    /// Who it is for, if the buyer said.
    pub traveller: Option<TravellerRow>,
    /// Read when the unit is fulfilled.
    pub installation: Option<InstallationDetails>,
    /// Oldest first.
    pub events: Vec<PurchaseEvent>,
}

/// One line of the customer's timeline: a status change, and the unit it happened to when the
/// buyer's page names one.
pub struct TimelineLine<'a> {
    pub event: &'a PurchaseEvent,
    pub unit: Option<&'a UnitRecord>,
}

impl OrderRecord {
    /// The customer's timeline, newest first: status changes only (staff notes and other
    /// same-status events are for the console). On the buyer's page of several eSIMs it holds
    /// every unit's changes, each named by its unit, except those every unit went through at
    /// the same moment (the payment), which are the order's and shown once.
    pub fn timeline(&self) -> Vec<TimelineLine<'_>> {
        let shown = |e: &&PurchaseEvent| e.from_status.as_deref() != Some(e.to_status.as_str());
        if self.units.is_empty() {
            return self
                .events
                .iter()
                .rev()
                .filter(shown)
                .map(|event| TimelineLine { event, unit: None })
                .collect();
        }
        let same =
            |a: &PurchaseEvent, b: &PurchaseEvent| a.at_ms == b.at_ms && a.to_status == b.to_status;
        let mut lines: Vec<TimelineLine<'_>> = Vec::new();
        for unit in &self.units {
            for event in unit.events.iter().filter(shown) {
                let everyones = self
                    .units
                    .iter()
                    .all(|other| other.events.iter().any(|o| same(o, event)));
                if !everyones {
                    lines.push(TimelineLine {
                        event,
                        unit: Some(unit),
                    });
                } else if !lines
                    .iter()
                    .any(|line| line.unit.is_none() && same(line.event, event))
                {
                    lines.push(TimelineLine { event, unit: None });
                }
            }
        }
        lines.sort_by_key(|line| std::cmp::Reverse((line.event.at_ms, line.event.id)));
        lines
    }
}

/// A unit's place in its checkout: "eSIM 2 of 4 · Ben".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitPlace {
    pub index: i32,
    pub count: usize,
    /// The traveller's name, if the buyer gave one.
    pub name: Option<String>,
}

impl UnitPlace {
    /// "eSIM 2 of 4" in `lang`, with the traveller's name when there is one
    /// ("eSIM 2 of 4 · Ben"): the words the buyer's page, the traveller's page and the
    /// emails name a unit by.
    pub fn label(&self, lang: crate::i18n::Lang) -> String {
        let place = lang.ta(
            "order-unit-label",
            &[
                ("index", i64::from(self.index).into()),
                ("count", self.count.into()),
            ],
        );
        match &self.name {
            Some(name) => format!("{place} · {name}"),
            None => place,
        }
    }
}

/// The purchase `id` when `token` is one of its live link tokens (not revoked, not expired
/// under `policy`); `None` for any other pair, so an unknown id and a wrong, revoked or
/// expired token look the same.
pub async fn purchase_for_link(
    orders: &Orders,
    id: &PurchaseId,
    token: &str,
    policy: LinkPolicy,
) -> Result<Option<Purchase>, DbError> {
    let db = orders.db();
    let (id, token) = (id.clone(), token.to_string());
    let opened = db
        .run(move |conn| links::open(conn, &id, &token, policy, now_ms()))
        .await?;
    Ok(opened.map(|opened| opened.purchase))
}

/// What lets a visitor open an order page.
#[derive(Debug, Clone)]
pub enum Proof {
    /// One of the purchase's private-link tokens (from the email or the browser's cookie).
    Link(String),
    /// A "My eSIMs" session (see [`my_esims::may_open`]).
    SignedIn(Customer),
}

/// The order page's data for `id` when `proof` opens it (`None` otherwise, alike for an
/// unknown id, as for [`purchase_for_link`]). The installation is read and opened only when
/// the purchase is fulfilled and `with_installation` (the caller may hold what it derived from
/// it already).
pub async fn read_order(
    orders: &Orders,
    keys: &InstallationKeys,
    id: &PurchaseId,
    proof: Proof,
    policy: LinkPolicy,
    with_installation: bool,
) -> Result<Option<OrderRecord>, OrderPageError> {
    let db = orders.db();
    let (id, keys) = (id.clone(), keys.clone());
    db.run(move |conn| {
        let opened = match &proof {
            Proof::Link(token) => links::open(conn, &id, token, policy, now_ms())?.map(|opened| {
                let buyer = opened.opens_checkout;
                (opened.purchase, opened.events, buyer, buyer)
            }),
            Proof::SignedIn(customer) => my_esims::open(conn, &id, customer, policy, now_ms())?
                .map(|(purchase, events)| (purchase, events, false, true)),
        };
        // A buyer's link opens the checkout's units; a My eSIMs session (the buyer's address)
        // opens one unit at a time, and both are the buyer, who may see the receipt.
        let Some((purchase, events, opens_checkout, as_buyer)) = opened else {
            return Ok(None);
        };
        let receipt = as_buyer && receipts::has_receipt(conn, &purchase.checkout_id)?;
        let trip = if opens_checkout {
            Some(
                checkouts::trip(conn, &purchase.checkout_id)?
                    .and_then(|row| row.trip_date)
                    .as_deref()
                    .and_then(TripDate::stored),
            )
        } else {
            None
        };
        let installation = if with_installation && purchase.status == PurchaseStatus::Fulfilled {
            load_installation_with(conn, &keys, &purchase.id)?
        } else {
            None
        };
        let siblings = units_of(conn, &purchase.checkout_id)?;
        let count = siblings.len();
        // The buyer's page of several eSIMs names each in its list, not the first on its own.
        let place = if count > 1 && !opens_checkout {
            Some(UnitPlace {
                index: purchase.unit_index,
                count,
                name: travellers::find(conn, &purchase.id)?.and_then(|t| t.name),
            })
        } else {
            None
        };
        let shown: Vec<&Purchase> = if opens_checkout && count > 1 {
            siblings.iter().collect()
        } else {
            vec![&purchase]
        };
        let ids: Vec<_> = shown.iter().map(|unit| unit.id.clone()).collect();
        let taxes = crate::db::tax::unit_taxes_of(conn, &ids)?;
        let charged = crate::domain::Cents::new(
            shown
                .iter()
                .map(|unit| {
                    let tax = taxes.get(&unit.id).copied().unwrap_or_default();
                    tax.charged(unit.price_cents).get()
                })
                .fold(0, i64::saturating_add),
        );
        // Only the buyer's link opens the other units.
        let units = if opens_checkout && count > 1 {
            siblings
                .into_iter()
                .map(|unit| {
                    let traveller = travellers::find(conn, &unit.id)?;
                    let installation = if unit.status == PurchaseStatus::Fulfilled {
                        load_installation_with(conn, &keys, &unit.id)?
                    } else {
                        None
                    };
                    let events = crate::db::purchases::events(conn, &unit.id)?;
                    Ok::<_, OrderPageError>(UnitRecord {
                        purchase: unit,
                        traveller,
                        installation,
                        events,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        Ok(Some(OrderRecord {
            purchase,
            events,
            installation,
            receipt,
            units,
            charged,
            place,
            trip,
        }))
    })
    .await
}
