//! The dashboard's figures for the last 30 days: orders, sales and margin per UTC day (and
//! the geometry of their chart, drawn as SVG by the template: no script), top destinations,
//! conversion from checkout to payment, and abandoned checkouts.
//!
//! A day's figures are those of the purchases paid that day ([`DaySales`]): sales are what
//! they charged less what was refunded, the margin is [`Takings::margin`] (refunds and supplier costs count on the
//! day the purchase was paid, as in the books).

use std::collections::HashMap;

use time::Date;

use super::period::{DAY_MS, Period};
use crate::db::daily_sales::DaySales;
use crate::db::dashboard::PlanSales;
use crate::domain::Cents;
use crate::domain::takings::Takings;

pub const DAYS: i64 = 30;
const TOP_DESTINATIONS: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub date: Date,
    /// Purchases paid that day.
    pub orders: i64,
    pub takings: Takings,
}

impl Day {
    /// `Nov 3`: the day as the chart and its table show it.
    pub fn label(&self) -> String {
        short_day(self.date)
    }

    /// What the day's purchases charged less what was refunded of them: net sales.
    pub fn sales(&self) -> Cents {
        self.takings.net_sales()
    }

    pub fn margin(&self) -> Cents {
        self.takings.margin()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub name: String,
    pub orders: i64,
    pub sales: Cents,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    pub days: Vec<Day>,
    pub destinations: Vec<Destination>,
    /// Checkouts started in the window, and how many of them were paid.
    pub started: i64,
    pub paid: i64,
    /// Never paid, payment page closed.
    pub abandoned: i64,
}

impl Figures {
    /// `37.5%` (to a tenth, rounded down), or `–` with no checkout started.
    pub fn conversion(&self) -> String {
        if self.started <= 0 {
            return "–".to_string();
        }
        let permille = self.paid.saturating_mul(1000) / self.started;
        format!("{}.{}%", permille / 10, permille % 10)
    }

    pub fn total(&self) -> Takings {
        self.days
            .iter()
            .fold(Takings::default(), |sum, d| sum.plus(d.takings))
    }

    pub fn total_sales(&self) -> Cents {
        self.total().net_sales()
    }

    pub fn total_margin(&self) -> Cents {
        self.total().margin()
    }
}

/// What the figures are made of, read for the `DAYS` UTC days up to the one containing a
/// moment.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The window's days (a missing day counts as no sales).
    pub days: Vec<DaySales>,
    pub plans: Vec<PlanSales>,
    /// Checkouts started in the window, and of those paid.
    pub started: i64,
    pub paid: i64,
    pub abandoned: i64,
}

/// The figures of the `DAYS` UTC days up to the one containing `now_ms`.
pub fn figures(inputs: &Inputs, now_ms: i64) -> Figures {
    let period = Period::last_days(now_ms, DAYS);
    let start = period.start_ms();
    let mut days: Vec<Day> = (0..DAYS)
        .map(|i| Day {
            date: period.first + time::Duration::days(i),
            orders: 0,
            takings: Takings::default(),
        })
        .collect();
    for d in &inputs.days {
        if let Some(day) = usize::try_from((d.day_ms - start).div_euclid(DAY_MS))
            .ok()
            .filter(|_| period.contains_ms(d.day_ms))
            .and_then(|i| days.get_mut(i))
        {
            day.orders = day.orders.saturating_add(d.orders);
            day.takings = day.takings.plus(d.takings);
        }
    }
    let mut by_name: HashMap<String, (i64, i64)> = HashMap::new();
    for p in &inputs.plans {
        let name = p.destination.clone().unwrap_or_else(|| p.plan_id.clone());
        let entry = by_name.entry(name).or_default();
        entry.0 = entry.0.saturating_add(p.orders);
        entry.1 = entry.1.saturating_add(p.sales_cents);
    }
    let mut destinations: Vec<Destination> = by_name
        .into_iter()
        .map(|(name, (orders, sales))| Destination {
            name,
            orders,
            sales: Cents::new(sales),
        })
        .collect();
    destinations.sort_by(|a, b| (b.orders, b.sales, &a.name).cmp(&(a.orders, a.sales, &b.name)));
    destinations.truncate(TOP_DESTINATIONS);
    Figures {
        days,
        destinations,
        started: inputs.started,
        paid: inputs.paid,
        abandoned: inputs.abandoned,
    }
}

// ---- the chart ------------------------------------------------------------------------------

/// The chart's drawing area, in SVG user units (the SVG scales to its box).
pub const WIDTH: i64 = 400;
pub const HEIGHT: i64 = 210;
const LEFT: i64 = 52;
const RIGHT: i64 = 6;
const TOP: i64 = 10;
const BOTTOM: i64 = 24;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
    /// For the bar's `<title>`: `Nov 3: sales $12.00`.
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tick {
    pub pos: i64,
    pub label: String,
}

/// Sales bars with the margin drawn inside each, value gridlines and day labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub width: i64,
    pub height: i64,
    pub sales: Vec<Bar>,
    pub margin: Vec<Bar>,
    /// Horizontal gridlines (y) with their amounts.
    pub gridlines: Vec<Tick>,
    /// Day labels under the bars (x: the label's centre).
    pub days: Vec<Tick>,
    /// The zero line's y.
    pub zero: i64,
    pub plot_left: i64,
    pub plot_right: i64,
    pub label_y: i64,
}

/// A round upper bound for the axis: 1, 2 or 5 times a power of ten dollars (in cents).
fn nice_ceiling(cents: i64) -> i64 {
    let mut step = 100_i64;
    loop {
        for m in [1, 2, 5] {
            let candidate = step.saturating_mul(m);
            if candidate >= cents || candidate == i64::MAX {
                return candidate;
            }
        }
        if step > i64::MAX / 10 {
            return i64::MAX;
        }
        step *= 10;
    }
}

fn short_day(d: Date) -> String {
    let month = match d.month() {
        time::Month::January => "Jan",
        time::Month::February => "Feb",
        time::Month::March => "Mar",
        time::Month::April => "Apr",
        time::Month::May => "May",
        time::Month::June => "Jun",
        time::Month::July => "Jul",
        time::Month::August => "Aug",
        time::Month::September => "Sep",
        time::Month::October => "Oct",
        time::Month::November => "Nov",
        time::Month::December => "Dec",
    };
    format!("{month} {}", d.day())
}

pub fn chart(days: &[Day]) -> Chart {
    let high = days
        .iter()
        .map(|d| d.sales().get().max(d.margin().get()))
        .max()
        .unwrap_or(0)
        .max(1);
    let low = days
        .iter()
        .map(|d| d.margin().get())
        .min()
        .unwrap_or(0)
        .min(0);
    let top_value = nice_ceiling(high);
    // Losses get at least a sixth of the height, so the zero line and the lowest gridline
    // keep their labels apart.
    let bottom_value = if low < 0 {
        nice_ceiling(low.saturating_neg().max(top_value / 5)).saturating_neg()
    } else {
        0
    };
    let plot_h = HEIGHT - TOP - BOTTOM;
    let span = i128::from(top_value) - i128::from(bottom_value);
    let y_of = |v: i64| -> i64 {
        let offset = (i128::from(top_value) - i128::from(v)) * i128::from(plot_h) / span.max(1);
        TOP + i64::try_from(offset).unwrap_or(plot_h)
    };
    let zero = y_of(0);
    let plot_w = WIDTH - LEFT - RIGHT;
    let n = i64::try_from(days.len()).unwrap_or(1).max(1);
    let slot = plot_w / n;
    let bar_w = (slot * 4 / 5).max(1);
    let inner_w = (bar_w / 2).max(1);
    let mut sales = Vec::new();
    let mut margin = Vec::new();
    let mut labels = Vec::new();
    for (i, d) in (0_i64..).zip(days) {
        let x = LEFT + i * slot + (slot - bar_w) / 2;
        let day = short_day(d.date);
        let bar = |v: i64, x: i64, w: i64, what: &str| {
            let y = y_of(v);
            Bar {
                x,
                y: y.min(zero),
                width: w,
                height: (y - zero).abs(),
                label: format!("{day}: {what} {}", Cents::new(v)),
            }
        };
        sales.push(bar(d.sales().get(), x, bar_w, "sales"));
        margin.push(bar(
            d.margin().get(),
            x + (bar_w - inner_w) / 2,
            inner_w,
            "margin",
        ));
        if i % 7 == 0 || i == n - 1 && i % 7 > 3 {
            labels.push(Tick {
                pos: x + bar_w / 2,
                label: day,
            });
        }
    }
    let mut gridlines = vec![
        Tick {
            pos: y_of(top_value),
            label: Cents::new(top_value).to_string(),
        },
        Tick {
            pos: y_of(top_value / 2),
            label: Cents::new(top_value / 2).to_string(),
        },
        Tick {
            pos: zero,
            label: "$0".to_string(),
        },
    ];
    if bottom_value < 0 {
        gridlines.push(Tick {
            pos: y_of(bottom_value),
            label: Cents::new(bottom_value).to_string(),
        });
    }
    for g in &mut gridlines {
        if let Some(whole) = g.label.strip_suffix(".00") {
            g.label = whole.to_string();
        }
    }
    Chart {
        width: WIDTH,
        height: HEIGHT,
        sales,
        margin,
        gridlines,
        days: labels,
        zero,
        plot_left: LEFT,
        plot_right: WIDTH - RIGHT,
        label_y: HEIGHT - 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_327_235_000; // 2026-11-22T06:00:35Z

    fn day(day_ms: i64, orders: i64, paid: i64, refunded: i64, cost: i64) -> DaySales {
        DaySales {
            day_ms,
            orders,
            takings: Takings {
                paid: Cents::new(paid),
                refunded: Cents::new(refunded),
                tax: Cents::ZERO,
                supplier_cost: Cents::new(cost),
            },
        }
    }

    #[test]
    fn days_destinations_and_conversion() {
        let today = NOW - NOW.rem_euclid(DAY_MS);
        let plan = |id: &str, name: Option<&str>, orders, sales| PlanSales {
            plan_id: id.into(),
            destination: name.map(str::to_string),
            orders,
            sales_cents: sales,
        };
        let inputs = Inputs {
            days: vec![
                day(today, 2, 1800, 800, 1300),
                day(today - DAY_MS, 1, 500, 0, 400),
                day(today - 40 * DAY_MS, 1, 5, 0, 1),
            ],
            plans: vec![
                plan("plan-a", Some("Japan"), 1, 1000),
                plan("plan-b", Some("Japan"), 1, 500),
                plan("plan-c", None, 1, 100),
            ],
            started: 4,
            paid: 3,
            abandoned: 1,
        };
        let f = figures(&inputs, NOW);
        assert_eq!(f.days.len(), 30);
        let last = f.days.last().expect("today");
        assert_eq!(
            (last.orders, last.sales().get()),
            (2, 1000),
            "net of refunds"
        );
        assert_eq!(
            last.margin().get(),
            1800 - 800 - 1300,
            "a kept cost is a loss"
        );
        assert_eq!(f.days[28].sales().get(), 500);
        assert_eq!(
            f.total_sales().get(),
            1500,
            "the day 40 days ago is left out"
        );
        assert_eq!(f.total_margin().get(), -300 + 100);
        assert_eq!(f.destinations.len(), 2);
        assert_eq!(
            (f.destinations[0].name.as_str(), f.destinations[0].orders),
            ("Japan", 2)
        );
        assert_eq!(f.destinations[1].name, "plan-c");
        assert_eq!((f.started, f.paid), (4, 3));
        assert_eq!(f.conversion(), "75.0%");
        assert_eq!(f.abandoned, 1);
    }

    #[test]
    fn the_chart_stays_inside_its_box_and_shows_losses_below_zero() {
        let mut days: Vec<Day> = (0..30)
            .map(|i| Day {
                date: Date::MIN + time::Duration::days(i),
                orders: 1,
                takings: Takings {
                    paid: Cents::new(i * 1000),
                    refunded: Cents::ZERO,
                    tax: Cents::ZERO,
                    supplier_cost: Cents::new(i * 800 + 1500),
                },
            })
            .collect();
        days[3].takings.paid = Cents::new(123_456);
        days[3].takings.supplier_cost = Cents::new(123_456 - 3 * 200 + 1500);
        let c = chart(&days);
        for b in c.sales.iter().chain(&c.margin) {
            assert!(b.x >= c.plot_left && b.x + b.width <= c.plot_right, "{b:?}");
            assert!(b.y >= 0 && b.y + b.height <= c.height, "{b:?}");
        }
        assert!(
            c.margin[0].y == c.zero && c.margin[0].height > 0,
            "a loss hangs below zero"
        );
        assert_eq!(c.gridlines[0].label, "$2,000");
        assert!(
            c.gridlines.iter().any(|g| g.label == "-$500"),
            "losses get a sixth of the height at least: {:?}",
            c.gridlines
        );
        assert_eq!(c.days.len(), 5);
        assert_eq!(nice_ceiling(1), 100);
        assert_eq!(nice_ceiling(101), 200);
        assert_eq!(nice_ceiling(123_456), 200_000);
        assert_eq!(
            Figures {
                days: vec![],
                destinations: vec![],
                started: 0,
                paid: 0,
                abandoned: 0
            }
            .conversion(),
            "–"
        );
    }
}
