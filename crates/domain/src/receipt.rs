//! Receipts and credit notes as documents: how their numbers read, how a checkout's units
//! become the receipt's lines, and how the payment method is named. Issuing and storing them
//! is `orders::receipts`'s; this holds the rules that need no database.

use std::fmt;

use crate::Cents;

/// The currency every sale is charged in (prices are USD cents).
pub const CURRENCY: &str = "USD";

/// A numbered series of documents; each runs 1, 2, 3, … for the shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Series {
    Receipt,
    CreditNote,
}

impl Series {
    /// The counter row's key (`document_counters.series`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Receipt => "receipt",
            Self::CreditNote => "credit_note",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::Receipt => "R",
            Self::CreditNote => "CN",
        }
    }
}

/// A document's number as printed: `R-000042`, `CN-000001`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentNumber {
    pub series: Series,
    pub value: i64,
}

impl DocumentNumber {
    pub fn receipt(value: i64) -> Self {
        Self {
            series: Series::Receipt,
            value,
        }
    }

    pub fn credit_note(value: i64) -> Self {
        Self {
            series: Series::CreditNote,
            value,
        }
    }
}

impl fmt::Display for DocumentNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:06}", self.series.prefix(), self.value)
    }
}

/// How the buyer paid, as the receipt names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentMethod {
    /// The built-in demo provider: no money moved.
    Demo,
    /// A card, through Stripe.
    Card,
}

impl PaymentMethod {
    /// The method of a payment provider by its name (`demo`, `stripe`); an unknown name is a
    /// card payment, the only kind the other providers take.
    pub fn of_provider(provider: &str) -> Self {
        if provider == "demo" {
            Self::Demo
        } else {
            Self::Card
        }
    }

    /// What is stored (`receipts.payment_method`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Demo => "demo",
            Self::Card => "stripe",
        }
    }

    pub fn parse(stored: &str) -> Self {
        Self::of_provider(stored)
    }
}

/// What a receipt line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Something sold: a plan, so many units at a unit price, less a discount.
    Item,
    /// Tax charged on the sale, at a rate, for a jurisdiction.
    Tax,
}

impl LineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Item => "item",
            Self::Tax => "tax",
        }
    }

    pub fn parse(stored: &str) -> Self {
        if stored == "tax" {
            Self::Tax
        } else {
            Self::Item
        }
    }
}

/// One unit of a checkout as sold: its plan and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSale {
    pub plan_id: String,
    /// The plan's price before a discount.
    pub list_price: Cents,
    pub discount: Cents,
    /// What was charged for it: `list_price − discount`.
    pub price: Cents,
}

/// A receipt's item line: the units of one plan sold at one price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLine {
    pub plan_id: String,
    pub quantity: i32,
    pub unit_price: Cents,
    /// The discount on the whole line.
    pub discount: Cents,
    /// `quantity × unit_price − discount`: what the line charged.
    pub amount: Cents,
}

/// The item lines of a checkout's units, in the order the units were bought: units of the
/// same plan at the same list price and discount share one line.
pub fn item_lines(units: &[UnitSale]) -> Vec<ItemLine> {
    let mut lines: Vec<(ItemLine, Cents)> = Vec::new();
    for unit in units {
        let same = lines.iter_mut().find(|(line, per_unit_discount)| {
            line.plan_id == unit.plan_id
                && line.unit_price == unit.list_price
                && *per_unit_discount == unit.discount
        });
        match same {
            Some((line, _)) => {
                line.quantity = line.quantity.saturating_add(1);
                line.discount = Cents::new(line.discount.get().saturating_add(unit.discount.get()));
                line.amount = Cents::new(line.amount.get().saturating_add(unit.price.get()));
            }
            None => lines.push((
                ItemLine {
                    plan_id: unit.plan_id.clone(),
                    quantity: 1,
                    unit_price: unit.list_price,
                    discount: unit.discount,
                    amount: unit.price,
                },
                unit.discount,
            )),
        }
    }
    lines.into_iter().map(|(line, _)| line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(plan: &str, list: i64, discount: i64) -> UnitSale {
        UnitSale {
            plan_id: plan.into(),
            list_price: Cents::new(list),
            discount: Cents::new(discount),
            price: Cents::new(list - discount),
        }
    }

    #[test]
    fn numbers_read_with_their_series() {
        assert_eq!(DocumentNumber::receipt(42).to_string(), "R-000042");
        assert_eq!(DocumentNumber::credit_note(1).to_string(), "CN-000001");
        assert_eq!(DocumentNumber::receipt(1_234_567).to_string(), "R-1234567");
    }

    #[test]
    fn units_of_one_plan_and_price_share_a_line() {
        let lines = item_lines(&[
            unit("fr-5gb", 1299, 0),
            unit("jp-1gb", 500, 100),
            unit("fr-5gb", 1299, 0),
            unit("jp-1gb", 500, 100),
            unit("jp-1gb", 500, 0),
        ]);
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0].quantity, lines[0].amount), (2, Cents::new(2598)));
        assert_eq!(
            (lines[1].quantity, lines[1].discount, lines[1].amount),
            (2, Cents::new(200), Cents::new(800))
        );
        assert_eq!((lines[2].quantity, lines[2].amount), (1, Cents::new(500)));
    }

    #[test]
    fn providers_name_their_method() {
        assert_eq!(PaymentMethod::of_provider("demo"), PaymentMethod::Demo);
        assert_eq!(PaymentMethod::of_provider("stripe"), PaymentMethod::Card);
        assert_eq!(
            PaymentMethod::parse(PaymentMethod::Card.as_str()),
            PaymentMethod::Card
        );
    }
}
