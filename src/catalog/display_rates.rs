//! The owner's display currencies as the console changes them: set or clear a rate, each in one
//! transaction with its audit entry and a raised pricing version, then the catalog is reloaded
//! so the shop's pages (and their cached copies, which belong to one snapshot) show the new
//! converted prices at once; other replicas follow through the pricing version like a markup
//! change (see [`super::Catalog`]). Rates never touch what is charged.

use crate::catalog::Catalog;
use crate::db::display_rates::{self as q, RateRow};
use crate::db::{DbError, now_ms};
use crate::domain::currency::Rate;
use crate::staff::Admin;

/// Audit actions of the display currencies page.
pub mod action {
    pub use crate::staff::action::{
        DISPLAY_RATE_CLEARED as RATE_CLEARED, DISPLAY_RATE_SET as RATE_SET,
    };
}

/// The stored rates.
#[tracing::instrument(skip_all)]
pub async fn list(catalog: &Catalog) -> Result<Vec<RateRow>, DbError> {
    catalog.db().run(q::list).await
}

fn describe(rate: &Rate) -> String {
    format!(
        "1 USD = {} {} (rate of {})",
        rate.rate_text(),
        rate.currency(),
        rate.date()
    )
}

/// Sets `rate` for `by`, audited with the rate before, and reloads the catalog.
#[tracing::instrument(skip_all, fields(admin.id = by.user_id))]
pub async fn set(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    rate: Rate,
) -> Result<(), DbError> {
    let (by, client) = (by.clone(), client_addr.to_string());
    catalog
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                let before = q::find(conn, rate.currency())?.map_or_else(
                    || "none".to_string(),
                    |row| format!("{} micros per USD ({})", row.micros_per_usd, row.rate_date),
                );
                q::set(
                    conn,
                    rate.currency(),
                    rate.micros_per_usd(),
                    rate.date(),
                    now,
                )?;
                by.audit(
                    conn,
                    action::RATE_SET,
                    Some(&format!("currency:{}", rate.currency())),
                    &client,
                    &format!("before: {before}; after: {}", describe(&rate)),
                    now,
                )
            })
        })
        .await?;
    catalog.reload().await?;
    Ok(())
}

/// Clears the rate of `currency` for `by`, audited, and reloads the catalog. Returns whether
/// there was one.
pub async fn clear(
    catalog: &Catalog,
    by: &Admin,
    client_addr: &str,
    currency: String,
) -> Result<bool, DbError> {
    let (by, client) = (by.clone(), client_addr.to_string());
    let cleared = catalog
        .db()
        .run(move |conn| {
            let now = now_ms();
            conn.write_tx(|conn| {
                if !q::clear(conn, &currency, now)? {
                    return Ok::<_, DbError>(false);
                }
                by.audit(
                    conn,
                    action::RATE_CLEARED,
                    Some(&format!("currency:{currency}")),
                    &client,
                    "cleared",
                    now,
                )?;
                Ok(true)
            })
        })
        .await?;
    if cleared {
        catalog.reload().await?;
    }
    Ok(cleared)
}
