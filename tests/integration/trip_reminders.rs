//! "When do you leave?": a buyer gives a departure day at checkout or later on the order page,
//! and the shop emails one reminder at 09:00 the day before, in the shop's time zone, in the
//! language of the purchase, with the buyer's link and the plan's install advice. A changed
//! date moves the reminder; the same date never gets a second one; a refunded order gets none.
//!
//! The shop's zone is chosen per test so that it is about noon there now: "tomorrow" then has
//! its reminder due this morning (it goes out at once), and later days have theirs ahead.

use storefront::catalog::ShopPlan;
use storefront::db::now_ms;
use storefront::db::outbox::{self as jobs, Job};
use storefront::domain::job::JobKind;
use storefront::domain::plan::Activation;
use storefront::sandbox::Outcome;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Answer, Backend, Browser, Email, TestApp, hidden, spawn_shop_with, wait_for};
use crate::journeys::{pay, purchase_id, sellable_plan};

both_backends!(
    the_reminder_goes_out_once_the_morning_before_and_follows_a_changed_date,
    a_refunded_order_gets_no_reminder,
);

/// A fixed-offset zone where it is about noon now (`Etc/GMT-3` is UTC+3), and its today.
fn noon_zone() -> (String, jiff::civil::Date) {
    let now = jiff::Timestamp::now();
    let utc_hour = i64::from(now.to_zoned(jiff::tz::TimeZone::UTC).hour());
    let offset = 12 - utc_hour;
    let name = match offset {
        0 => "UTC".to_string(),
        o if o > 0 => format!("Etc/GMT-{o}"),
        o => format!("Etc/GMT+{}", -o),
    };
    let zone = jiff::tz::TimeZone::get(&name).expect("a zone of the database");
    (name, now.to_zoned(zone).date())
}

/// 09:00 on the day before `day` in zone `name`, as Unix ms.
fn nine_the_day_before(name: &str, day: jiff::civil::Date) -> i64 {
    let zone = jiff::tz::TimeZone::get(name).expect("zone");
    day.yesterday()
        .expect("a day before")
        .at(9, 0, 0, 0)
        .to_zoned(zone)
        .expect("in range")
        .timestamp()
        .as_millisecond()
}

fn iso(day: jiff::civil::Date) -> String {
    day.strftime("%Y-%m-%d").to_string()
}

/// Checks out `plan` in German with `trip_date`; returns the answer.
async fn buy_leaving(app: &TestApp, buyer: &Browser, plan: &ShopPlan, trip_date: &str) -> Answer {
    let page = buyer
        .get(app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains("name=\"trip_date\" type=\"date\""),
        "the plan page asks when the buyer leaves"
    );
    buyer
        .post(
            app,
            "/checkout",
            &[
                ("csrf_token", &hidden(&page, "csrf_token")),
                ("plan_id", &plan.id),
                ("email", "leaving@example.com"),
                ("confirm_device", "yes"),
                ("accept_terms", "yes"),
                (
                    "expected_price_cents",
                    &hidden(&page, "expected_price_cents"),
                ),
                ("lang", "de"),
                ("trip_date", trip_date),
            ],
        )
        .await
}

/// The checkout's reminder jobs, oldest first.
async fn reminders(app: &TestApp, checkout: &str) -> Vec<Job> {
    let id = as_id(checkout);
    app.db
        .run(move |c| jobs::jobs_for_purchase(c, &id))
        .await
        .expect("jobs")
        .into_iter()
        .filter(|j| j.kind == JobKind::EmailTripReminder.as_str())
        .collect()
}

/// The trip reminders written so far.
fn reminder_emails(app: &TestApp) -> Vec<Email> {
    crate::helpers::emails_in(app.mail_dir.path())
        .into_iter()
        .filter(|e| e.text.contains("Du wolltest am Tag vor deiner Abreise"))
        .collect()
}

/// Sends the order page's trip form as `browser`; returns the answer.
async fn set_trip(app: &TestApp, browser: &Browser, checkout: &str, date: &str) -> Answer {
    let form = browser
        .get(app, &format!("/orders/{checkout}/trip"))
        .await
        .assert_status(200)
        .body;
    browser
        .post(
            app,
            &format!("/orders/{checkout}/trip"),
            &[
                ("csrf_token", &hidden(&form, "csrf_token")),
                ("trip_date", date),
            ],
        )
        .await
}

async fn the_reminder_goes_out_once_the_morning_before_and_follows_a_changed_date(
    backend: Backend,
) {
    let (zone, today) = noon_zone();
    let Some((app, upstream)) =
        spawn_shop_with(backend, 20, &[("STOREFRONT_TIME_ZONE", &zone)]).await
    else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 20)
        .expect("balance");
    crate::checkout::age_wallet(&app.db).await;
    let buyer = Browser::default();

    // A date in the past or more than a year ahead is refused beside the field, nothing bought.
    let yesterday = iso(today.yesterday().expect("yesterday"));
    let refused = buy_leaving(&app, &buyer, &plan, &yesterday)
        .await
        .assert_status(400)
        .body;
    assert!(
        refused.contains("Der Abreisetag darf nicht in der Vergangenheit liegen")
            || refused.contains("The day you leave cannot be in the past"),
        "{refused}"
    );
    let far = iso(today.checked_add(jiff::Span::new().days(400)).expect("day"));
    let refused = buy_leaving(&app, &buyer, &plan, &far)
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("at most one year from today"), "{refused}");
    assert!(
        refused.contains(&format!("value=\"{far}\"")),
        "kept as typed"
    );

    // Leaving in three days: the reminder waits for 09:00 the day before, shop time.
    let leaving = today.checked_add(jiff::Span::new().days(3)).expect("day");
    let pay_page = buy_leaving(&app, &buyer, &plan, &iso(leaving))
        .await
        .assert_status(303)
        .location();
    let order = pay(
        &app,
        &buyer,
        pay_page.strip_prefix(&app.address).unwrap_or(&pay_page),
    )
    .await
    .assert_status(303)
    .location();
    let checkout = purchase_id(&order);
    app.wait_for_emails("leaving@example.com", 2).await;
    let queued = reminders(&app, &checkout).await;
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!(queued[0].state, "queued");
    assert_eq!(queued[0].run_at_ms, nine_the_day_before(&zone, leaving));
    let page = buyer.get(&app, &format!("/orders/{checkout}")).await.body;
    assert!(
        page.contains(&format!("data-trip=\"{}\"", iso(leaving))),
        "the buyer's page shows the date: {page}"
    );

    // Run early, it sends nothing and waits for its time again.
    let id = checkout.clone();
    app.db
        .run(move |c| jobs::make_due_now(c, &as_id(&id), now_ms()))
        .await
        .expect("due");
    let due = nine_the_day_before(&zone, leaving);
    wait_for("the early run to put the reminder back", async || {
        let jobs = reminders(&app, &checkout).await;
        match jobs.first() {
            Some(j) if j.state == "queued" && j.run_at_ms == due && j.attempts > 0 => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert!(reminder_emails(&app).is_empty(), "nothing sent early");

    // Someone without the buyer's link cannot see or change the date.
    let stranger = Browser::default();
    stranger
        .get(&app, &format!("/orders/{checkout}/trip"))
        .await
        .assert_status(404);
    // Nor can the buyer's own browser without the form's token.
    buyer
        .post(
            &app,
            &format!("/orders/{checkout}/trip"),
            &[("trip_date", &iso(today))],
        )
        .await
        .assert_status(403);
    // A date in the past is refused on the order page too; the stored one stays.
    let refused = set_trip(&app, &buyer, &checkout, &yesterday)
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("cannot be in the past"), "{refused}");
    assert_eq!(reminders(&app, &checkout).await[0].run_at_ms, due);

    // The buyer now leaves tomorrow: the reminder moves to this morning, so it goes out now.
    let tomorrow = today.tomorrow().expect("tomorrow");
    set_trip(&app, &buyer, &checkout, &iso(tomorrow))
        .await
        .assert_redirect_to(format!("/orders/{checkout}"));
    wait_for("the reminder", async || match reminder_emails(&app).len() {
        1 => Ok(()),
        n => Err(n.to_string()),
    })
    .await;
    let reminder = reminder_emails(&app).remove(0);
    assert!(reminder.is_to("leaving@example.com"));
    // In the purchase's language, with the buyer's link and the plan's advice.
    assert!(
        reminder
            .text
            .contains(&format!("/orders/{checkout}?token=")),
        "{}",
        reminder.text
    );
    let advice = match plan.activation {
        Activation::FirstInstall => "Installiere sie also bei der Ankunft",
        Activation::FirstNetwork => "Du kannst sie also jetzt installieren",
        Activation::Other(_) => "Installiere sie kurz bevor du sie brauchst",
    };
    assert!(reminder.text.contains(advice), "{}", reminder.text);

    // The same date again queues nothing that sends: one reminder per date.
    set_trip(&app, &buyer, &checkout, &iso(tomorrow))
        .await
        .assert_status(303);
    wait_for("the second job to end", async || {
        let jobs = reminders(&app, &checkout).await;
        if jobs.iter().all(|j| j.state == "done") {
            Ok(())
        } else {
            Err(format!("{jobs:?}"))
        }
    })
    .await;
    let outcomes: Vec<_> = reminders(&app, &checkout)
        .await
        .into_iter()
        .map(|j| j.outcome.unwrap_or_default())
        .collect();
    assert_eq!(outcomes, ["sent", "already_sent"]);
    assert_eq!(reminder_emails(&app).len(), 1, "exactly one reminder");

    // Removing the date ends any reminder to come: a later date set and then removed sends
    // nothing.
    let later = today.checked_add(jiff::Span::new().days(5)).expect("day");
    set_trip(&app, &buyer, &checkout, &iso(later))
        .await
        .assert_status(303);
    let form = buyer
        .get(&app, &format!("/orders/{checkout}/trip"))
        .await
        .body;
    buyer
        .post(
            &app,
            &format!("/orders/{checkout}/trip"),
            &[
                ("csrf_token", &hidden(&form, "csrf_token")),
                ("trip_date", &iso(later)),
                ("remove", "yes"),
            ],
        )
        .await
        .assert_status(303);
    let last = reminders(&app, &checkout).await.pop().expect("a job");
    assert_eq!(last.state, "done");
    assert_eq!(last.outcome.as_deref(), Some("no_trip_reminder_due"));
    let page = buyer.get(&app, &format!("/orders/{checkout}")).await.body;
    assert!(page.contains("data-trip=\"\""), "no date shown: {page}");
}

async fn a_refunded_order_gets_no_reminder(backend: Backend) {
    let (zone, today) = noon_zone();
    let Some((app, upstream)) =
        spawn_shop_with(backend, 20, &[("STOREFRONT_TIME_ZONE", &zone)]).await
    else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 20)
        .expect("balance");
    upstream
        .sandbox
        .set_plan_outcome(&plan.id, Outcome::Failed)
        .expect("outcome");
    crate::checkout::age_wallet(&app.db).await;
    let buyer = Browser::default();
    let leaving = today.checked_add(jiff::Span::new().days(2)).expect("day");
    let pay_page = buy_leaving(&app, &buyer, &plan, &iso(leaving))
        .await
        .assert_status(303)
        .location();
    let order = pay(
        &app,
        &buyer,
        pay_page.strip_prefix(&app.address).unwrap_or(&pay_page),
    )
    .await
    .assert_status(303)
    .location();
    let checkout = purchase_id(&order);
    wait_for("the order to be refunded", async || {
        let page = buyer.get(&app, &order).await.body;
        if page.contains("data-status=\"refunded\"") {
            Ok(())
        } else {
            Err(page)
        }
    })
    .await;

    // Its reminder, made due now, ends without an email.
    let id = checkout.clone();
    app.db
        .run(move |c| jobs::make_due_now(c, &as_id(&id), now_ms()))
        .await
        .expect("due");
    wait_for("the reminder job to end", async || {
        let jobs = reminders(&app, &checkout).await;
        match jobs.as_slice() {
            [j] if j.state == "done" => Ok(j.outcome.clone()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    let job = reminders(&app, &checkout).await.remove(0);
    assert_eq!(job.outcome.as_deref(), Some("not_delivered"));
    assert!(reminder_emails(&app).is_empty());
    let page = buyer.get(&app, &order).await.body;
    assert!(
        !page.contains("data-trip="),
        "no trip form on a refunded order"
    );
}
