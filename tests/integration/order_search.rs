//! The console's order search on a shop where a search matches many orders or few: each way
//! of matching the text is read by its own index, and when one finds a great many the list is
//! read in its order instead (`db::order_search::PROBE`). Whichever way the rows are found,
//! a page holds exactly the newest matches after its cursor, as a plain filter of every row
//! would list them. The list's note of abandoned checkouts it leaves out counts up to a bound
//! and then says "at least".

use storefront::db::order_search::{
    self, Abandoned, Cursor, NOT_LISTED_ROWS, OrderFilter, PROBE, Page,
};
use storefront::db::purchases::{self, Purchase};
use storefront::db::{Db, DbError};

use crate::both_backends;
use crate::fixtures::purchase;
use crate::helpers::{Backend, TestDb};

both_backends!(
    a_page_of_matches_is_the_newest_whatever_way_they_are_found,
    the_abandoned_checkouts_left_out_are_counted_up_to_a_bound,
);

const START: i64 = 1_790_000_000_000;
const NOW: i64 = START + 10_000_000;

/// `n` purchases `{prefix}{i}` by `email(i)`, a second apart from `first_ms`.
async fn insert_many(
    db: &Db,
    prefix: &'static str,
    n: i64,
    first_ms: i64,
    status: &'static str,
    email: fn(i64) -> String,
) {
    db.run(move |conn| {
        for i in 0..n {
            let new = purchase(&format!("{prefix}{i:04}"))
                .status(status)
                .email(&email(i))
                .plan("plan-x")
                .price(1_000)
                .cost(800)
                .reference(format!("sf-{prefix}{i:04}"))
                .created(first_ms + i * 1000)
                .expires_in(60_000)
                .build();
            purchases::insert(conn, &new, "created")?;
        }
        Ok::<_, DbError>(())
    })
    .await
    .expect("insert purchases");
}

/// The ids of `page` of `text`'s matches as the search lists them, `size` at a time.
async fn listed(db: &Db, text: &str, page: Page, size: i64) -> Vec<String> {
    let filter = OrderFilter {
        query: Some(text.to_string()),
        now_ms: NOW,
        ..Default::default()
    };
    db.run(move |conn| order_search::search_orders(conn, &filter, &page, size))
        .await
        .expect("search")
        .into_iter()
        .map(|p| p.id.to_string())
        .collect()
}

/// What a plain filter of every row lists for `text`: newest first.
fn expected(all: &[Purchase], text: &str) -> Vec<Purchase> {
    let lower = text.to_lowercase();
    let mut found: Vec<Purchase> = all
        .iter()
        .filter(|p| {
            let email = p.email.as_str().to_lowercase();
            let domain = email.split_once('@').map(|(_, d)| d.to_string());
            email.starts_with(&lower)
                || domain.as_deref() == Some(lower.as_str())
                || p.id.as_str() == text
                || p.reference == text
        })
        .cloned()
        .collect();
    found.sort_by(|a, b| {
        (b.created_at_ms, b.id.to_string()).cmp(&(a.created_at_ms, a.id.to_string()))
    });
    found
}

async fn a_page_of_matches_is_the_newest_whatever_way_they_are_found(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let many = PROBE + 100;
    // A domain with more purchases than a probe reads, their addresses all starting with "c";
    // a few at another domain, older and newer; a customer with three orders.
    insert_many(&db, "m", many, START, "paid", |i| {
        format!("c{i:04}@many.example")
    })
    .await;
    insert_many(&db, "o", 3, START - 50_000, "paid", |i| {
        format!("Other{i}@Rare.Example")
    })
    .await;
    insert_many(&db, "z", 3, START + 2_000_000, "paid", |_| {
        "zoe@rare.example".to_string()
    })
    .await;
    let all: Vec<Purchase> = db
        .run(|conn| {
            use diesel::prelude::*;
            use storefront::db::schema::purchases;
            Ok::<_, DbError>(purchases::table.select(Purchase::as_select()).load(conn)?)
        })
        .await
        .expect("every purchase");
    let size = 26;
    for text in [
        "many.example",        // one way, more than a probe: its newest are read in order
        "c",                   // the start of more addresses than a probe: the list read in order
        "c012",                // the start of ten addresses
        "rare.example",        // a domain of six, any case
        "zoe@rare.example",    // one customer's address
        "other1@rare.example", // one order
        "m0042",               // an id
        "sf-o0001",            // a reference
        "nobody@nowhere.example",
    ] {
        let want = expected(&all, text);
        let ids = |rows: &[Purchase]| rows.iter().map(|p| p.id.to_string()).collect::<Vec<_>>();
        let first = listed(&db, text, Page::First, size).await;
        let n = want.len().min(26);
        assert_eq!(first, ids(&want[..n]), "the first page of {text:?}");
        if want.len() > 26 {
            let at = Cursor::of(&want[25]);
            let older = listed(&db, text, Page::Older(at), size).await;
            let m = (want.len() - 26).min(26);
            assert_eq!(older, ids(&want[26..26 + m]), "the second page of {text:?}");
            let at = Cursor::of(&want[26]);
            let newer = listed(&db, text, Page::Newer(at), size).await;
            assert_eq!(
                newer,
                ids(&want[..26]),
                "back to the first page of {text:?}"
            );
        }
    }
}

async fn the_abandoned_checkouts_left_out_are_counted_up_to_a_bound(backend: Backend) {
    let Some(test_db) = TestDb::new(backend) else {
        return;
    };
    let db = test_db.migrated().await;
    let hidden = |text: Option<&'static str>| {
        let db = db.clone();
        async move {
            let filter = OrderFilter {
                query: text.map(str::to_string),
                abandoned: Abandoned::Hide,
                now_ms: NOW,
                ..Default::default()
            };
            db.run(move |conn| order_search::not_listed(conn, &filter))
                .await
                .expect("count")
        }
    };
    insert_many(&db, "a", 3, START, "awaiting_payment", |i| {
        format!("a{i}@few.example")
    })
    .await;
    let few = hidden(None).await;
    assert_eq!((few.checkouts, few.at_least), (3, false));
    let one = hidden(Some("a1@few.example")).await;
    assert_eq!((one.checkouts, one.at_least), (1, false));
    insert_many(
        &db,
        "b",
        NOT_LISTED_ROWS + 5,
        START,
        "awaiting_payment",
        |i| format!("b{i}@lots.example"),
    )
    .await;
    let lots = hidden(None).await;
    assert!(lots.at_least, "{lots:?}");
    assert_eq!(
        lots.checkouts, NOT_LISTED_ROWS,
        "every unit is its own checkout here"
    );
    let domain = hidden(Some("lots.example")).await;
    assert!(
        domain.at_least && domain.checkouts == NOT_LISTED_ROWS,
        "{domain:?}"
    );
    let one = hidden(Some("b7@lots.example")).await;
    assert_eq!((one.checkouts, one.at_least), (1, false));
}
