//! Reminders of unfinished checkouts: only a buyer who ticked "Email me a reminder if I don't
//! finish" gets one, an hour after the unpaid checkout's payment page closed, linking back to
//! the plan; one a week per mailbox (case and `+tag` aside); none once the address paid since;
//! and never again after the email's unsubscribe link (a page with one button, or a mail
//! client's one-click POST).

use diesel::prelude::*;
use storefront::catalog::ShopPlan;
use storefront::db::outbox::{self as jobs, Job};
use storefront::db::schema::{purchases, reminder_addresses};
use storefront::db::{DbError, now_ms};
use storefront::domain::job::JobKind;

use crate::both_backends;
use crate::fixtures::as_id;
use crate::helpers::{Backend, Browser, Email, TestApp, hidden, spawn_shop, wait_for};
use crate::journeys::sellable_plan;

both_backends!(an_unfinished_checkout_is_reminded_once_a_week_with_consent_until_unsubscribed);

/// Checks out `plan` as `email`, ticking the reminder box when `consent`; returns the
/// checkout's id.
async fn check_out(app: &TestApp, plan: &ShopPlan, email: &str, consent: bool) -> String {
    let buyer = Browser::default();
    let page = buyer
        .get(app, &format!("/plans/{}", plan.id))
        .await
        .assert_status(200)
        .body;
    assert!(
        page.contains(
            "name=\"remind_unfinished\" type=\"checkbox\" value=\"yes\" aria-describedby"
        ),
        "the box is there and unticked"
    );
    let mut form = vec![
        ("csrf_token", hidden(&page, "csrf_token")),
        ("plan_id", plan.id.clone()),
        ("email", email.to_string()),
        ("confirm_device", "yes".into()),
        ("accept_terms", "yes".into()),
        (
            "expected_price_cents",
            hidden(&page, "expected_price_cents"),
        ),
    ];
    if consent {
        form.push(("remind_unfinished", "yes".into()));
    }
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    buyer.post(app, "/checkout", &form).await.assert_status(303);
    let email = email.to_lowercase();
    app.db
        .run(move |c| {
            purchases::table
                .filter(purchases::email_lower.eq(&email))
                .order(purchases::created_at_ms.desc())
                .select(purchases::checkout_id)
                .first::<String>(c)
                .map_err(DbError::from)
        })
        .await
        .expect("the checkout")
}

async fn reminder_jobs(app: &TestApp, checkout: &str) -> Vec<Job> {
    let id = as_id(checkout);
    app.db
        .run(move |c| jobs::jobs_for_purchase(c, &id))
        .await
        .expect("jobs")
        .into_iter()
        .filter(|j| j.kind == JobKind::EmailCheckoutReminder.as_str())
        .collect()
}

/// The payment page of `checkout` closed more than an hour ago; its reminder runs now, and
/// ends. Returns the job's outcome.
async fn an_hour_after_it_closed(app: &TestApp, checkout: &str) -> String {
    let id = checkout.to_string();
    app.db
        .run(move |c| {
            diesel::update(purchases::table.filter(purchases::checkout_id.eq(&id)))
                .set(purchases::expires_at_ms.eq(now_ms() - 61 * 60 * 1000))
                .execute(c)?;
            storefront::orders::checkout::expire_unpaid(c, now_ms())
                .map_err(|e| DbError::Task(e.to_string()))?;
            jobs::make_due_now(c, &as_id(&id), now_ms())
        })
        .await
        .expect("expired");
    wait_for("the reminder job to end", async || {
        match reminder_jobs(app, checkout).await.as_slice() {
            [job] if job.state == "done" => Ok(job.outcome.clone().unwrap_or_default()),
            other => Err(format!("{other:?}")),
        }
    })
    .await
}

fn reminders_to(app: &TestApp, address: &str) -> Vec<Email> {
    crate::helpers::emails_in(app.mail_dir.path())
        .into_iter()
        .filter(|e| {
            e.is_to(address)
                && e.text
                    .contains("You asked us to remind you if you did not finish")
        })
        .collect()
}

async fn an_unfinished_checkout_is_reminded_once_a_week_with_consent_until_unsubscribed(
    backend: Backend,
) {
    let Some((app, upstream)) = spawn_shop(backend, 20).await else {
        return;
    };
    let plan = sellable_plan(&app);
    upstream
        .sandbox
        .set_balance(plan.cost.get() * 20)
        .expect("balance");
    crate::checkout::age_wallet(&app.db).await;

    // Without the box ticked: no reminder is even queued.
    let silent = check_out(&app, &plan, "nope@example.com", false).await;
    assert!(reminder_jobs(&app, &silent).await.is_empty());

    // Ticked: one reminder, queued for an hour after the payment page closes.
    let first = check_out(&app, &plan, "maybe@example.com", true).await;
    let queued = reminder_jobs(&app, &first).await;
    assert_eq!(queued.len(), 1);
    let id = first.clone();
    let closes: i64 = app
        .db
        .run(move |c| {
            purchases::table
                .find(&id)
                .select(purchases::expires_at_ms)
                .first(c)
                .map_err(DbError::from)
        })
        .await
        .expect("expiry");
    assert_eq!(queued[0].run_at_ms, closes + 60 * 60 * 1000);
    assert_eq!(an_hour_after_it_closed(&app, &first).await, "sent");
    let sent = reminders_to(&app, "maybe@example.com");
    assert_eq!(sent.len(), 1);
    let email = &sent[0];
    assert!(
        email.text.contains(&format!("/plans/{}?lang=en", plan.id)),
        "links back to the plan: {}",
        email.text
    );
    let unsubscribe = email
        .header("List-Unsubscribe")
        .expect("List-Unsubscribe")
        .trim_matches(|c| c == '<' || c == '>')
        .to_string();
    assert_eq!(
        email.header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );
    let path = unsubscribe
        .strip_prefix(&app.address)
        .expect("the shop's own link")
        .to_string();
    assert!(email.text.contains(&path), "the link is in the email too");

    // The same mailbox again within the week (another case, a +tag): no second reminder.
    let second = check_out(&app, &plan, "Maybe+again@Example.com", true).await;
    assert_eq!(
        an_hour_after_it_closed(&app, &second).await,
        "reminded_this_week"
    );

    // A week later it may have one again, unless it paid for something since.
    app.db
        .run(|c| {
            diesel::update(reminder_addresses::table)
                .set(
                    reminder_addresses::last_reminded_at_ms.eq(Some(now_ms() - 8 * 24 * 3_600_000)),
                )
                .execute(c)
                .map_err(DbError::from)
        })
        .await
        .expect("a week on");

    // A checkout left unpaid while the address bought something else: no reminder.
    let left = check_out(&app, &plan, "maybe@example.com", true).await;
    let shopper = Browser::default();
    let pay_page = crate::journeys::buy(&app, &shopper, &plan, "maybe@example.com")
        .await
        .assert_status(303)
        .location();
    crate::journeys::pay(
        &app,
        &shopper,
        pay_page.strip_prefix(&app.address).unwrap_or(&pay_page),
    )
    .await
    .assert_status(303);
    assert_eq!(an_hour_after_it_closed(&app, &left).await, "paid_since");

    // Unsubscribing: opening the link changes nothing (mail scanners open links); the
    // page's button does.
    let reader = Browser::default();
    let page = reader.get(&app, &path).await.assert_status(200).body;
    assert!(page.contains("Unsubscribe"), "{page}");
    reader
        .post(&app, &path, &[("csrf_token", "")])
        .await
        .assert_status(403);
    let done = reader
        .post(&app, &path, &[("csrf_token", &hidden(&page, "csrf_token"))])
        .await
        .assert_status(200)
        .body;
    assert!(done.contains("data-unsubscribed"), "{done}");
    // A mail client's one-click POST, without the page's cookie, is answered too.
    Browser::default()
        .post(&app, &path, &[("List-Unsubscribe", "One-Click")])
        .await
        .assert_status(200);
    // An unknown link is the same 404 as any unknown page.
    Browser::default()
        .get(&app, "/unsubscribe/not-a-token")
        .await
        .assert_status(404);

    // Unsubscribed, the mailbox gets none, a week later or not.
    let third = check_out(&app, &plan, "maybe@example.com", true).await;
    assert_eq!(an_hour_after_it_closed(&app, &third).await, "unsubscribed");
    assert_eq!(reminders_to(&app, "maybe@example.com").len(), 1);
}
