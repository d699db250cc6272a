//! An owner in Tokyo reads the console in Tokyo time: the shop starts in the zone its settings
//! name (`STOREFRONT_TIME_ZONE`), the owner changes it on the Shop identity page (owner only,
//! audited, an unknown name refused), and every time on a console page is then a date in words
//! in that zone, with UTC a tooltip away.

use storefront::staff::Role;

use crate::admin::{OWNER, SUPPORT, create, insert_purchase, login_as};
use crate::both_backends;
use crate::helpers::{Backend, spawn_shop_with};

both_backends!(the_console_shows_times_in_the_owner_s_time_zone);

/// 2026-03-10 23:30:00 UTC: already 11 March in Tokyo, still 10 March in New York.
const LATE_EVENING_UTC: i64 = 1_773_185_400_000;

async fn the_console_shows_times_in_the_owner_s_time_zone(backend: Backend) {
    let Some((app, _upstream)) =
        spawn_shop_with(backend, 5, &[("STOREFRONT_TIME_ZONE", "America/New_York")]).await
    else {
        return;
    };
    create(&app.db, OWNER, Role::Owner).await;
    create(&app.db, SUPPORT, Role::Support).await;
    let id = "0123456789abcdef0123";
    insert_purchase(
        &app.db,
        id,
        "zone@example.com",
        "fulfilled",
        LATE_EVENING_UTC,
    )
    .await;
    let owner = login_as(&app, OWNER).await;

    // The configured default: New York, with the UTC time in the tooltip.
    let page = owner.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(
        page.contains(
            "<time datetime=\"2026-03-10T23:30:00Z\" title=\"2026-03-10 23:30 UTC\">10 Mar 2026, 19:30 EDT</time>"
        ),
        "{page}"
    );

    // Support may not change it.
    let support = login_as(&app, SUPPORT).await;
    let token = support.csrf(&app).await;
    support
        .post(
            &app,
            "/admin/identity/time-zone",
            &[("csrf_token", &token), ("time_zone", "Asia/Tokyo")],
        )
        .await
        .assert_status(403);

    // A name that is not a zone is refused, and nothing changes.
    let form = owner.get(&app, "/admin/identity").await.body;
    assert!(
        form.contains("<option selected>America/New_York</option>"),
        "the picker shows the zone in use"
    );
    let token = owner.csrf(&app).await;
    let refused = owner
        .post(
            &app,
            "/admin/identity/time-zone",
            &[("csrf_token", &token), ("time_zone", "Mars/Olympus_Mons")],
        )
        .await
        .assert_status(400)
        .body;
    assert!(refused.contains("is not a time zone name"), "{refused}");
    assert!(
        refused.contains("The time zone was not changed"),
        "{refused}"
    );

    owner
        .post(
            &app,
            "/admin/identity/time-zone",
            &[("csrf_token", &token), ("time_zone", "Asia/Tokyo")],
        )
        .await
        .assert_redirect_to("/admin/identity?saved=time-zone#time-zone");

    // Every page shows the new zone: the order, the list, the audit entry of the change.
    let page = owner.get(&app, &format!("/admin/orders/{id}")).await.body;
    assert!(
        page.contains("title=\"2026-03-10 23:30 UTC\">11 Mar 2026, 08:30 JST</time>"),
        "{page}"
    );
    let list = owner.get(&app, "/admin/orders?from=2026-03-10").await.body;
    assert!(list.contains("11 Mar 2026, 08:30 JST"), "{list}");
    let audit = owner.get(&app, "/admin/audit").await.body;
    assert!(audit.contains("Console time zone changed"), "{audit}");
    assert!(audit.contains("America/New_York → Asia/Tokyo"), "{audit}");
    assert!(audit.contains(" JST</time>"), "{audit}");
}
