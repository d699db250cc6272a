//! The admin console's test support, shared by the admin_* tests and others that sign in:
//! the staff accounts and their password, signing in, CSRF tokens and order actions from a
//! [`Browser`], the audit log, and order rows written without a checkout.

use diesel::prelude::*;
use storefront::db::schema::admin_audit;
use storefront::db::{Db, DbError, purchases};
use storefront::staff::{self, NewPassword, Role};

use crate::fixtures::purchase;
use crate::helpers::{Answer, TestApp};
pub(crate) use crate::helpers::{Browser, hidden};
// Suites that import the console helpers from here also buy through the shop.
pub(crate) use crate::journeys::buy_and_wait_fulfilled;

pub(crate) const OWNER: &str = "owner@example.com";
pub(crate) const SUPPORT: &str = "support@example.com";
pub(crate) const PASSWORD: &str = "a long admin passphrase";

impl Browser {
    /// A CSRF token for this browser, from the login page (or, once signed in, the
    /// dashboard's logout form).
    pub(crate) async fn csrf(&self, app: &TestApp) -> String {
        let login = self.get(app, "/admin/login").await;
        if login.status == 303 {
            return self.get(app, "/admin").await.hidden("csrf_token");
        }
        login.hidden("csrf_token")
    }

    pub(crate) async fn login(&self, app: &TestApp, email: &str, password: &str) -> Answer {
        let token = self.csrf(app).await;
        self.post(
            app,
            "/admin/login",
            &[
                ("email", email),
                ("password", password),
                ("csrf_token", &token),
            ],
        )
        .await
    }

    /// Posts an order action with this browser's CSRF token and a reason, as confirmed (an
    /// action that cannot be undone asks first; see `console_confirm`).
    pub(crate) async fn act(
        &self,
        app: &TestApp,
        purchase_id: &str,
        action: &str,
        reason: &str,
    ) -> Answer {
        let token = self.csrf(app).await;
        self.post(
            app,
            &format!("/admin/orders/{purchase_id}/{action}"),
            &[
                ("csrf_token", &token),
                ("reason", reason),
                ("confirmed", "yes"),
            ],
        )
        .await
    }
}

/// A fresh browser signed in as `email` with [`PASSWORD`].
pub(crate) async fn login_as(app: &TestApp, email: &str) -> Browser {
    let browser = Browser::default();
    let answer = browser.login(app, email, PASSWORD).await;
    assert_eq!(answer.status, 303, "{email} logs in: {}", answer.body);
    browser
}

pub(crate) async fn create(db: &Db, email: &str, role: Role) {
    let email = staff::admin_email(email).expect("email");
    let password = NewPassword::parse(PASSWORD).expect("password");
    staff::create_user(db, &email, role, password, "test")
        .await
        .expect("create user");
}

/// `(actor, action, target, details)` of every audit row, oldest first.
pub(crate) async fn audit_rows(db: &Db) -> Vec<(String, String, Option<String>, String)> {
    db.run(|conn| {
        Ok::<_, DbError>(
            admin_audit::table
                .order(admin_audit::id)
                .select((
                    admin_audit::actor,
                    admin_audit::action,
                    admin_audit::target,
                    admin_audit::details,
                ))
                .load(conn)?,
        )
    })
    .await
    .expect("audit")
}

/// A purchase row as checkout would write it, without going through payment.
pub(crate) async fn insert_purchase(db: &Db, id: &str, email: &str, status: &str, created_ms: i64) {
    let new = purchase(id)
        .status(status)
        .email(email)
        .plan("plan-x")
        .price(123_456)
        .cost(100_000)
        .reference(format!("sf-{id}"))
        .created(created_ms)
        .expires_in(3_600_000)
        .build();
    db.run(move |conn| purchases::insert(conn, &new, "created"))
        .await
        .expect("insert purchase");
}
