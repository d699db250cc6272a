//! What the shop stops keeping (`orders::retention`): a fulfilled order keeps its row, its
//! timeline, its jobs and its installation, and the owner still opens it in the console, while
//! its jobs' attempts, its spent links and its expired hold go; an abandoned checkout goes with
//! its rows; a paid order that has not ended keeps everything; nothing young is touched.

use diesel::prelude::*;
use storefront::db::schema::{
    checkout_holds, installations, order_link_tokens, outbox_attempts, outbox_jobs,
    purchase_events, purchases,
};
use storefront::db::{Db, DbError, now_ms};
use storefront::domain::job::JobKind;
use storefront::orders::retention::{Pruned, Retention, prune};
use storefront::staff::Role;

use crate::admin::{OWNER, create, login_as};
use crate::both_backends;
use crate::fixtures::purchase;
use crate::helpers::{Backend, Browser, spawn_shop};
use crate::journeys::{buy, buy_and_wait_fulfilled, sellable_plan};

both_backends!(rows_past_their_purpose_go_and_what_an_order_needs_stays);

const DAY_MS: i64 = 86_400_000;

const POLICY: Retention = Retention {
    job_history_days: 90,
    abandoned_checkout_days: 90,
    order_link_days: 90,
};

/// The rows that belong to purchase `id`: (purchase, events, jobs, attempts, link tokens,
/// holds, installation).
async fn rows_of(db: &Db, id: &str) -> [i64; 7] {
    let id = id.to_string();
    db.run(move |conn| {
        let jobs = outbox_jobs::table
            .filter(outbox_jobs::purchase_id.eq(&id))
            .select(outbox_jobs::id);
        Ok::<_, DbError>([
            purchases::table
                .filter(purchases::id.eq(&id))
                .count()
                .get_result(conn)?,
            purchase_events::table
                .filter(purchase_events::purchase_id.eq(&id))
                .count()
                .get_result(conn)?,
            outbox_jobs::table
                .filter(outbox_jobs::purchase_id.eq(&id))
                .count()
                .get_result(conn)?,
            outbox_attempts::table
                .filter(outbox_attempts::job_id.eq_any(jobs))
                .count()
                .get_result(conn)?,
            order_link_tokens::table
                .filter(order_link_tokens::purchase_id.eq(&id))
                .count()
                .get_result(conn)?,
            checkout_holds::table
                .filter(checkout_holds::purchase_id.eq(&id))
                .count()
                .get_result(conn)?,
            installations::table
                .filter(installations::purchase_id.eq(&id))
                .count()
                .get_result(conn)?,
        ])
    })
    .await
    .expect("counts")
}

/// A paid order still on its way (placed upstream, not yet fulfilled), with a finished email
/// job and its attempt, as old as everything else.
async fn paid_on_its_way(db: &Db, id: &str) {
    let new = purchase(id).status("ordered").build();
    let id = id.to_string();
    db.run(move |conn| {
        storefront::db::purchases::insert(conn, &new, "test")?;
        let now = now_ms();
        let job: i64 = diesel::insert_into(outbox_jobs::table)
            .values((
                outbox_jobs::kind.eq(JobKind::EmailPaymentReceived.as_str()),
                outbox_jobs::purchase_id.eq(&id),
                outbox_jobs::state.eq("done"),
                outbox_jobs::attempts.eq(1),
                outbox_jobs::run_at_ms.eq(now),
                outbox_jobs::created_at_ms.eq(now),
                outbox_jobs::updated_at_ms.eq(now),
            ))
            .returning(outbox_jobs::id)
            .get_result(conn)?;
        diesel::insert_into(outbox_attempts::table)
            .values((
                outbox_attempts::job_id.eq(job),
                outbox_attempts::attempt.eq(1),
                outbox_attempts::started_at_ms.eq(now),
                outbox_attempts::finished_at_ms.eq(now),
                outbox_attempts::outcome.eq("sent"),
                outbox_attempts::detail.eq(""),
            ))
            .execute(conn)?;
        Ok::<_, DbError>(())
    })
    .await
    .expect("a paid order on its way");
}

async fn rows_past_their_purpose_go_and_what_an_order_needs_stays(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop(backend, 40).await else {
        return;
    };
    let fulfilled = buy_and_wait_fulfilled(&app).await;
    let abandoned_by = Browser::default();
    buy(
        &app,
        &abandoned_by,
        &sellable_plan(&app),
        "left@example.com",
    )
    .await
    .assert_status(303);
    app.drain_outbox().await;
    let abandoned: String = app
        .db
        .run(|conn| {
            Ok::<_, DbError>(
                purchases::table
                    .filter(purchases::email.eq("left@example.com"))
                    .select(purchases::id)
                    .first(conn)?,
            )
        })
        .await
        .expect("the abandoned checkout");
    paid_on_its_way(&app.db, "on-its-way-1").await;

    let before = [
        rows_of(&app.db, &fulfilled).await,
        rows_of(&app.db, &abandoned).await,
        rows_of(&app.db, "on-its-way-1").await,
    ];
    let [f, a, w] = &before;
    assert!(f[3] > 0 && f[4] > 0 && f[6] == 1, "fulfilled: {f:?}");
    assert!(
        a[0] == 1 && a[1] > 0 && a[4] > 0 && a[5] == 1,
        "abandoned: {a:?}"
    );
    assert_eq!(w[3], 1, "on its way: {w:?}");

    // A day on, nothing has served its purpose yet.
    let now = now_ms();
    let young = prune(&app.db, POLICY, now + DAY_MS - 3_600_000)
        .await
        .expect("prune");
    assert_eq!(young, Pruned::default());
    assert_eq!(
        [
            rows_of(&app.db, &fulfilled).await,
            rows_of(&app.db, &abandoned).await,
            rows_of(&app.db, "on-its-way-1").await,
        ],
        before
    );

    // A hundred days on.
    let old = prune(&app.db, POLICY, now + 100 * DAY_MS)
        .await
        .expect("prune");
    let f_after = rows_of(&app.db, &fulfilled).await;
    assert_eq!(
        f_after,
        [f[0], f[1], f[2], 0, 0, 0, 1],
        "the fulfilled order keeps its row, timeline, jobs and installation; its attempts, \
         spent links and expired hold go"
    );
    assert_eq!(
        rows_of(&app.db, &abandoned).await,
        [0; 7],
        "the abandoned checkout is gone"
    );
    assert_eq!(
        rows_of(&app.db, "on-its-way-1").await,
        *w,
        "the order on its way keeps all"
    );
    assert_eq!(
        old,
        Pruned {
            job_attempts: usize::try_from(f[3]).expect("count"),
            holds: 1 + usize::try_from(f[5]).expect("count"),
            link_tokens: usize::try_from(f[4]).expect("count"),
            abandoned_checkouts: 1,
        }
    );

    // The owner still opens the fulfilled order, with its history of jobs.
    create(&app.db, OWNER, Role::Owner).await;
    let owner = login_as(&app, OWNER).await;
    let page = owner
        .get(&app, &format!("/admin/orders/{fulfilled}"))
        .await
        .assert_status(200);
    assert!(page.body.contains("Fulfilled") || page.body.contains("fulfilled"));
}
