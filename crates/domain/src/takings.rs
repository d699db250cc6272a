//! What sales did to the shop's money, and the one definition of margin that the console's
//! order page, the dashboard, the books and every CSV show:
//!
//! margin = paid − refunded − tax − supplier cost
//!
//! where paid is what buyers were charged (tax added on top included) and tax is the tax kept
//! on those sales: each sale's tax less the share its refund carried back. Tax is owed to the
//! tax office, never the shop's, whether prices include it or it was added on top.
//!
//! where the supplier cost is what the shop's wallet paid for the upstream order and did not
//! get back: the plan's cost once an order was placed upstream, nothing when upstream failed or
//! refunded that order (its cost is back in the wallet) or when no order was ever placed. A
//! refund "keeping the cost" therefore leaves the cost in, and the sale is a loss; a refund
//! whose upstream order was given back costs nothing but the refund itself, which returns
//! what was paid.

use super::Cents;

/// A UTC day in milliseconds.
pub const DAY_MS: i64 = 86_400_000;

/// The start (unix milliseconds) of the UTC day containing `ms`: the key money is summed by.
pub fn utc_day_start(ms: i64) -> i64 {
    ms - ms.rem_euclid(DAY_MS)
}

/// Upstream order statuses after which the order's cost is back in the wallet (released or
/// refunded).
pub fn gives_cost_back(upstream_status: Option<&str>) -> bool {
    matches!(upstream_status, Some("failed" | "refunded"))
}

/// What a purchase costs the shop wholesale: `cost` once placed upstream, unless upstream
/// failed or refunded the order.
pub fn supplier_cost(placed: bool, upstream_status: Option<&str>, cost: Cents) -> Cents {
    if placed && !gives_cost_back(upstream_status) {
        cost
    } else {
        Cents::ZERO
    }
}

/// The tax a sale that `charged` with `tax` in it still owes after `refunded` of it came back:
/// a refund carries back its share of the tax, by the rule credit notes use
/// ([`super::tax::proportional`]), so a full refund leaves none.
pub fn tax_kept(tax: Cents, refunded: Cents, charged: Cents) -> Cents {
    Cents::new(tax.get() - super::tax::proportional(tax, refunded, charged).get())
}

/// The money of one purchase, or the sum of several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Takings {
    /// Charged to buyers, tax included (nothing for a purchase never paid).
    pub paid: Cents,
    /// Given back to buyers (refunds not failed).
    pub refunded: Cents,
    /// Tax kept on the sales: charged less what refunds carried back (see [`tax_kept`]).
    pub tax: Cents,
    /// Paid from the supplier wallet and not returned (see [`supplier_cost`]).
    pub supplier_cost: Cents,
}

impl Takings {
    /// One purchase's money: what it `charged` (with its `tax` in it) counts once it was paid.
    pub fn of_purchase(
        paid: bool,
        charged: Cents,
        tax: Cents,
        refunded: Cents,
        placed: bool,
        upstream_status: Option<&str>,
        cost: Cents,
    ) -> Self {
        if !paid {
            return Self {
                refunded,
                supplier_cost: supplier_cost(placed, upstream_status, cost),
                ..Self::default()
            };
        }
        Self {
            paid: charged,
            refunded,
            tax: tax_kept(tax, refunded, charged),
            supplier_cost: supplier_cost(placed, upstream_status, cost),
        }
    }

    /// Paid less refunded: what buyers kept paying, tax included.
    pub fn net_sales(&self) -> Cents {
        Cents::new(self.paid.get().saturating_sub(self.refunded.get()))
    }

    /// Paid, less refunded, less the tax kept, less the supplier cost; negative for a loss.
    pub fn margin(&self) -> Cents {
        Cents::new(
            self.paid
                .get()
                .saturating_sub(self.refunded.get())
                .saturating_sub(self.tax.get())
                .saturating_sub(self.supplier_cost.get()),
        )
    }

    /// Both sums, part by part (saturating).
    pub fn plus(self, other: Self) -> Self {
        let add = |a: Cents, b: Cents| Cents::new(a.get().saturating_add(b.get()));
        Self {
            paid: add(self.paid, other.paid),
            refunded: add(self.refunded, other.refunded),
            tax: add(self.tax, other.tax),
            supplier_cost: add(self.supplier_cost, other.supplier_cost),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: i64) -> Cents {
        Cents::new(v)
    }

    #[test]
    fn one_margin_for_every_state_of_a_sale() {
        let fulfilled =
            Takings::of_purchase(true, c(1000), c(0), c(0), true, Some("fulfilled"), c(600));
        assert_eq!(fulfilled.margin(), c(400));
        let kept = Takings::of_purchase(
            true,
            c(1000),
            c(0),
            c(1000),
            true,
            Some("fulfilled"),
            c(600),
        );
        assert_eq!(
            kept.margin(),
            c(-600),
            "refund and keep the cost: the cost is a loss"
        );
        let returned =
            Takings::of_purchase(true, c(1000), c(0), c(1000), true, Some("failed"), c(600));
        assert_eq!(returned.margin(), c(0));
        let before_placement =
            Takings::of_purchase(true, c(1000), c(0), c(1000), false, None, c(600));
        assert_eq!(before_placement.margin(), c(0));
        let unpaid = Takings::of_purchase(false, c(1000), c(0), c(0), false, None, c(600));
        assert_eq!(unpaid, Takings::default());
        let both = fulfilled.plus(kept);
        assert_eq!(both.margin(), c(400 - 600));
        assert_eq!(
            (both.paid, both.refunded, both.supplier_cost),
            (c(2000), c(1000), c(1200))
        );
    }

    #[test]
    fn tax_is_never_margin() {
        // $10 with $1.90 added on top, cost $6: the buyer paid $11.90, the shop keeps $4.
        let on_top =
            Takings::of_purchase(true, c(1190), c(190), c(0), true, Some("fulfilled"), c(600));
        assert_eq!((on_top.tax, on_top.margin()), (c(190), c(400)));
        // $11.90 with the tax in it: the same money, the same margin.
        let within =
            Takings::of_purchase(true, c(1190), c(190), c(0), true, Some("fulfilled"), c(600));
        assert_eq!(within.margin(), c(400));
        // Refunded in full before placement: the tax went back with the price.
        let refunded = Takings::of_purchase(true, c(1190), c(190), c(1190), false, None, c(600));
        assert_eq!((refunded.tax, refunded.margin()), (c(0), c(0)));
        // Refunded, the cost kept: a loss of the cost, not of the tax.
        let kept = Takings::of_purchase(
            true,
            c(1190),
            c(190),
            c(1190),
            true,
            Some("fulfilled"),
            c(600),
        );
        assert_eq!(kept.margin(), c(-600));
        assert_eq!(tax_kept(c(190), c(595), c(1190)), c(95));
    }
}
