//! `storefront reconcile --from --to`: the console's reconciliation, for a scheduler. Prints
//! one line per open mismatch on standard output, then one per mismatch the owner explained
//! (with the note), then a summary; the exit code says whether the books close (0: they match,
//! or every mismatch left is explained) or not (1: some mismatch is open). Credits from
//! outside the shop are part of the books, never a mismatch.

use std::sync::Arc;

use crate::books::{Books, Period};
use crate::config::{ConfigError, DatabaseUrl, UpstreamSettings};
use crate::db::Db;
use crate::upstream::PartnerClient;

use super::CliError;

pub async fn run(
    url: DatabaseUrl,
    upstream: UpstreamSettings,
    period: Period,
) -> Result<(), CliError> {
    let client = PartnerClient::from_settings(&upstream).map_err(|e| {
        CliError::Config(ConfigError {
            var: "STOREFRONT_UPSTREAM_BASE_URL".into(),
            problem: e.to_string(),
        })
    })?;
    let db = Db::open_for_command(&url, 2)?;
    db.migrate().await?;
    // A 429 seen by a running shop holds this command back too, and the other way round.
    client.share_gate(Arc::new(
        crate::orders::upstream_gate::SharedUpstreamGate::new(
            db.clone(),
            &format!("cli:{}", std::process::id()),
        ),
    ));
    let books = Books {
        db: &db,
        upstream: &client,
    };
    let report = books.reconcile(period).await.map_err(|e| match e {
        crate::books::BooksError::Db(db) => CliError::Db(db),
        other => CliError::Io(other.to_string()),
    })?;
    for line in report.mismatches() {
        println!("{}", line.summary());
    }
    for line in report.explained() {
        if let Some(e) = &line.explanation {
            println!(
                "explained by {}: {} (note: {})",
                e.by,
                line.summary(),
                e.note
            );
        }
    }
    let t = report.totals;
    let summary = format!(
        "{} to {}: {} purchases, paid {}, refunded {}, cost {}, margin {}; top-ups {}; \
         credits from outside the shop {}; upstream's wallet moved {}, the shop's books {}",
        period.first,
        period.last,
        t.purchases,
        t.paid,
        t.refunded,
        t.cost,
        t.margin,
        t.topups,
        t.outside_credits,
        t.upstream_wallet,
        t.shop_wallet
    );
    if report.matches() {
        println!("books match: {summary}");
        Ok(())
    } else if report.closes() {
        println!(
            "books close: every difference left is explained ({} explained, none open): {summary}",
            t.explained
        );
        Ok(())
    } else {
        Err(CliError::Incomplete(format!(
            "{} mismatches not explained, off by {}: {summary}",
            t.mismatches, t.open_difference
        )))
    }
}
