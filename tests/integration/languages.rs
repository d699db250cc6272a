//! The shop in English, Spanish and German: every consumer page and email renders in each
//! language without a missing message or an English leftover; the language comes from
//! `?lang=` (remembered in a cookie), the cookie or `Accept-Language`; `<html lang>` names it;
//! a purchase keeps the language it was bought in for all its emails; the console stays
//! English.

use std::time::{Duration, Instant};

use storefront::domain::Cents;
use storefront::i18n::{self, Lang};
use storefront::mail::{MailBrand, OrderLink, OutgoingEmail, Receipt};
use url::Url;

use crate::both_backends;
use crate::fixtures;
use crate::fixtures::as_id;
use crate::helpers::{Backend, Browser, TestApp, hidden, spawn_shop_with};
use crate::journeys::{buy, pay, purchase_id, sellable_plan, wait_fulfilled};
use crate::mail::{parse_eml, part};

/// English texts of the catalogs long enough to be unmistakable, which the other languages
/// translate: any of them on a Spanish or German page is an English leftover.
fn english_leftovers() -> Vec<String> {
    i18n::ids()
        .into_iter()
        .map(|id| (Lang::En.t(&id), Lang::Es.t(&id), Lang::De.t(&id)))
        .filter(|(en, es, de)| en.len() >= 16 && en != es && en != de && !en.contains('{'))
        .map(|(en, _, _)| en)
        .collect()
}

/// Askama's escapes undone, so catalog texts can be looked for in a page.
fn unescaped(html: &str) -> String {
    html.replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&#38;", "&")
        .replace("&amp;", "&")
}

/// What every page and email in `lang` must be: no missing message (`⟦id⟧`), no unfilled
/// argument, and outside English no English text of the catalogs.
fn assert_written_in(lang: Lang, what: &str, text: &str, leftovers: &[String]) {
    assert!(
        !text.contains('⟦'),
        "{what} ({lang:?}) misses a message: {text}"
    );
    assert!(
        !text.contains("{$"),
        "{what} ({lang:?}) has an unfilled argument: {text}"
    );
    if lang != Lang::En {
        let text = unescaped(text);
        for english in leftovers {
            assert!(
                !text.contains(english.as_str()),
                "{what} ({lang:?}) is partly English: {english:?}"
            );
        }
    }
}

/// A browser that chose `lang` with the switcher (the cookie it set), connecting from an
/// address of its own (the per-client limits count each language's browser apart).
fn browser_in(lang: Lang) -> Browser {
    let browser = Browser::from_address(&format!("127.0.0.{}", 20 + lang as u8));
    browser.set_cookie("lang", lang.code());
    browser
}

/// Opens `path` in `browser` and checks the page: its status and its language.
async fn walk(
    app: &TestApp,
    browser: &Browser,
    lang: Lang,
    path: &str,
    status: u16,
    leftovers: &[String],
) -> String {
    let answer = browser.get(app, path).await;
    let got = answer.status;
    let html = answer.body;
    assert_eq!(got, status, "{path} ({lang:?}): {html}");
    check_page(lang, path, &html, leftovers);
    html
}

fn check_page(lang: Lang, what: &str, html: &str, leftovers: &[String]) {
    assert!(
        html.contains(&format!("<html lang=\"{}\">", lang.code())),
        "{what} ({lang:?}) names another language"
    );
    assert_written_in(lang, what, html, leftovers);
}

/// A purchase row in `status` (as checkout would have written it) with a working order link;
/// returns the order page's path after the link was exchanged for the cookie.
async fn order_in_state(
    app: &TestApp,
    browser: &Browser,
    id: &str,
    status: &str,
    plan: &str,
) -> String {
    let row = fixtures::purchase(id).status(status).plan(plan).build();
    let purchase = id.to_string();
    let token = app
        .db
        .run(move |c| {
            c.write_tx(|c| {
                storefront::db::purchases::insert(c, &row, "test")?;
                storefront::orders::links::issue(
                    c,
                    &as_id(&purchase),
                    true,
                    storefront::db::now_ms(),
                )
            })
        })
        .await
        .expect("purchase written");
    browser
        .get(app, &format!("/orders/{id}?token={token}"))
        .await
        .assert_status(303)
        .location()
}

/// Every consumer page in every language: catalog, plan, search, help, lost link, checkout
/// problems, the payment page, the order page in each state, and the error pages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_consumer_page_is_written_in_each_language() {
    let (app, _upstream) = spawn_shop_with(
        Backend::Sqlite,
        40,
        &[("STOREFRONT_SUPPORT_EMAIL", "help@shop.example")],
    )
    .await
    .expect("sqlite");
    let leftovers = english_leftovers();
    assert!(leftovers.len() > 100, "{}", leftovers.len());
    let snap = app.catalog.snapshot();
    let plan = sellable_plan(&app);
    let country = snap.destinations().first().expect("a country").code.clone();
    let region = snap.listed_regions().next().map(|r| r.slug.clone());
    let regional_plan = snap
        .plans()
        .iter()
        .find(|p| p.kind != storefront::catalog::PlanKind::Local)
        .map(|p| p.id.clone());

    for lang in Lang::ALL {
        let browser = browser_in(lang);
        let mut pages = vec![
            ("/".to_string(), 200),
            ("/countries".to_string(), 200),
            ("/regions".to_string(), 200),
            (format!("/countries/{country}"), 200),
            (format!("/countries/{country}?sort=data&days=9999"), 200),
            (format!("/plans/{}", plan.id), 200),
            ("/search?q=a".to_string(), 200),
            ("/search?q=zzzzqqq".to_string(), 200),
            ("/help/compatibility".to_string(), 200),
            ("/help/installation".to_string(), 200),
            ("/help/refunds".to_string(), 200),
            ("/lost-link".to_string(), 200),
            ("/no-such-page".to_string(), 404),
            ("/orders/no-such-order".to_string(), 404),
        ];
        if let Some(region) = &region {
            pages.push((format!("/regions/{region}"), 200));
        }
        if let Some(id) = &regional_plan {
            pages.push((format!("/plans/{id}"), 200));
        }
        for (path, status) in &pages {
            walk(&app, &browser, lang, path, *status, &leftovers).await;
        }

        // The plan page's form with every problem at once, and a changed price.
        let page = browser.get(&app, &format!("/plans/{}", plan.id)).await.body;
        let token = hidden(&page, "csrf_token");
        let errors = browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "nope"),
                    ("promo_code", "!"),
                ],
            )
            .await
            .assert_status(400)
            .body;
        check_page(lang, "checkout errors", &errors, &leftovers);
        assert_eq!(errors.matches("<li><a href=\"#").count(), 4, "{errors}");
        assert!(
            errors.contains(&lang.t("promo-bad-format")),
            "{lang:?}: {errors}"
        );
        // A code the shop does not have: the form again, the refusal beside the field.
        let refused = browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "traveller@example.com"),
                    ("confirm_device", "yes"),
                    ("accept_terms", "yes"),
                    ("promo_code", "NOSUCHCODE"),
                ],
            )
            .await
            .assert_status(409)
            .body;
        check_page(lang, "unknown promotion code", &refused, &leftovers);
        assert!(
            unescaped(&refused).contains(&lang.t("promo-unknown")),
            "{lang:?}: {refused}"
        );
        let changed = browser
            .post(
                &app,
                "/checkout",
                &[
                    ("csrf_token", &token),
                    ("plan_id", &plan.id),
                    ("email", "traveller@example.com"),
                    ("confirm_device", "yes"),
                    ("accept_terms", "yes"),
                    ("expected_price_cents", "1"),
                ],
            )
            .await
            .assert_status(409)
            .body;
        check_page(lang, "price changed", &changed, &leftovers);
        // A form without its token: the 403 page.
        let expired = browser
            .post(&app, "/checkout", &[("plan_id", &plan.id)])
            .await
            .assert_status(403)
            .body;
        check_page(lang, "expired form", &expired, &leftovers);

        // The lost-link form's answers.
        let form = browser.get(&app, "/lost-link").await.body;
        let token = hidden(&form, "csrf_token");
        let invalid = browser
            .post(
                &app,
                "/lost-link",
                &[("csrf_token", &token), ("email", "x")],
            )
            .await
            .assert_status(400)
            .body;
        check_page(lang, "lost link, bad address", &invalid, &leftovers);
        let sent = browser
            .post(
                &app,
                "/lost-link",
                &[("csrf_token", &token), ("email", "nobody@example.com")],
            )
            .await
            .assert_status(200)
            .body;
        check_page(lang, "lost link, sent", &sent, &leftovers);

        // A real purchase: the payment page, then the order page until the eSIM is ready.
        let pay_page = buy(&app, &browser, &plan, "traveller@example.com")
            .await
            .assert_status(303)
            .location();
        walk(&app, &browser, lang, &pay_page, 200, &leftovers).await;
        let order_path = pay(&app, &browser, &pay_page)
            .await
            .assert_status(303)
            .location();
        let order = wait_fulfilled(&app, &browser, &order_path).await;
        check_page(lang, "fulfilled order", &order, &leftovers);
        assert!(order.contains("<section class=\"install\""), "{order}");
        // The closed payment page.
        walk(&app, &browser, lang, &pay_page, 200, &leftovers).await;

        // The order page in every other state.
        for status in [
            "awaiting_payment",
            "paid",
            "ordered",
            "provisioning",
            "payment_failed",
            "needs_attention",
            "failed",
            "refunded",
        ] {
            let id = format!("{}{status}", lang.code()).replace('_', "");
            let path = order_in_state(&app, &browser, &id, status, &plan.id).await;
            let html = walk(&app, &browser, lang, &path, 200, &leftovers).await;
            assert!(
                html.contains(&format!("data-status=\"{status}\"")),
                "{html}"
            );
        }
    }
}

/// Every customer email in every language, both parts and the subject.
#[test]
fn every_customer_email_is_written_in_each_language() {
    let leftovers = english_leftovers();
    let to = storefront::domain::Email::parse("ana@example.com").expect("valid");
    let url = Url::parse("https://shop.example.com/orders/p1?token=abc").expect("url");
    let receipt = Receipt::new(
        &as_id("3fa29c1e0b7d"),
        "Japan · 1 GB",
        Cents::new(3_669),
        1_795_413_900_000,
    );
    let links = [OrderLink {
        receipt: receipt.clone(),
        url: url.clone(),
    }];
    for lang in Lang::ALL {
        let emails = i18n::sync_scope(lang, || {
            [
                OutgoingEmail::payment_received(
                    to.clone(),
                    &MailBrand::named("Shop"),
                    &url,
                    &receipt,
                ),
                OutgoingEmail::esim_ready(to.clone(), &MailBrand::named("Shop"), &url, &receipt),
                OutgoingEmail::order_refunded(
                    to.clone(),
                    &MailBrand::named("Shop"),
                    &url,
                    &receipt,
                    storefront::domain::purchase::RefundCause::DeliveryFailed.customer_reason(),
                ),
                OutgoingEmail::lost_link(to.clone(), &MailBrand::named("Shop"), &links, &url)
                    .expect("orders"),
            ]
        });
        // A receipt with a promotion code names the code and what it took off.
        let with_code = receipt
            .clone()
            .with_promo(Some("SPRING"), Some(4_077), Some(408));
        let promo_email = i18n::sync_scope(lang, || {
            OutgoingEmail::payment_received(to.clone(), &MailBrand::named("Shop"), &url, &with_code)
        })
        .expect("renders");
        let line = match lang {
            Lang::En => "SPRING, $4.08 off $40.77",
            Lang::Es => "SPRING, 4,08\u{a0}US$ de descuento sobre 40,77\u{a0}US$",
            Lang::De => "SPRING, 4,08\u{a0}$ Rabatt auf 40,77\u{a0}$",
        };
        for part in [&promo_email.text, &promo_email.html] {
            assert_written_in(lang, "receipt with a code", part, &leftovers);
            assert!(part.contains(line), "{lang:?}: {part}");
            assert!(part.contains(&lang.t("mail-receipt-promo")), "{part}");
        }
        let (money, day) = match lang {
            Lang::En => ("$36.69", "23 Nov 2026"),
            Lang::Es => ("36,69\u{a0}US$", "23 nov 2026"),
            Lang::De => ("36,69\u{a0}$", "23. Nov. 2026"),
        };
        for (i, email) in emails.into_iter().enumerate() {
            let email = email.expect("renders");
            assert_written_in(lang, &email.subject, &email.subject, &leftovers);
            assert_written_in(lang, &email.subject, &email.text, &leftovers);
            assert_written_in(lang, &email.subject, &email.html, &leftovers);
            assert!(
                email
                    .html
                    .contains(&format!("<html lang=\"{}\">", lang.code())),
                "{}",
                email.html
            );
            assert!(
                email.text.contains(day),
                "{}: {}",
                email.subject,
                email.text
            );
            // The order-links email lists orders without amounts.
            if i < 3 {
                assert!(
                    email.text.contains(money),
                    "{}: {}",
                    email.subject,
                    email.text
                );
            }
        }
    }
}

/// The headers and body of `path`, asked with `Accept-Language: accept` and `Cookie: cookie`
/// (each left out when empty).
async fn get(
    app: &TestApp,
    accept: &str,
    cookie: &str,
    path: &str,
) -> (reqwest::header::HeaderMap, String) {
    let mut request = app.client.get(app.url(path));
    if !accept.is_empty() {
        request = request.header("accept-language", accept);
    }
    if !cookie.is_empty() {
        request = request.header("cookie", cookie);
    }
    let res = request.send().await.expect("answer");
    let headers = res.headers().clone();
    (headers, res.text().await.expect("body"))
}

/// `?lang=` wins and sets the cookie; the cookie wins over `Accept-Language`, which is read
/// with its q-values; nothing known means English. Answers vary on what chose the language.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_language_comes_from_the_switcher_the_cookie_or_the_browser() {
    let (app, _upstream) = spawn_shop_with(Backend::Sqlite, 20, &[])
        .await
        .expect("sqlite");
    let lang_of = |html: &str| {
        html.split("<html lang=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default()
            .to_string()
    };

    let (headers, html) = get(&app, "", "", "/").await;
    assert_eq!(lang_of(&html), "en");
    assert!(
        html.contains("Mobile data for your trip"),
        "English by default"
    );
    let vary = headers
        .get("vary")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        vary.contains("Accept-Language") && vary.contains("Cookie"),
        "{vary}"
    );
    assert!(vary.contains("Accept-Encoding"), "{vary}");
    // Assets are the same in every language: shared caches keep one copy.
    let css = html
        .split("rel=\"stylesheet\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a stylesheet");
    let (headers, _) = get(&app, "de", "lang=es", css).await;
    let vary = headers
        .get("vary")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(!vary.contains("Accept-Language"), "{css}: {vary}");

    let (_, html) = get(&app, "fr-FR,de;q=0.8,es;q=0.9", "", "/").await;
    assert_eq!(lang_of(&html), "es", "the highest q-value the shop has");
    assert!(html.contains("Datos móviles para tu viaje"), "{html}");
    let (_, html) = get(&app, "de-AT", "", "/countries").await;
    assert_eq!(lang_of(&html), "de");
    assert!(html.contains("<h1>Alle Länder</h1>"));
    let (_, html) = get(&app, "fr, it;q=0.5", "", "/").await;
    assert_eq!(lang_of(&html), "en", "no language the shop has");

    // The cookie beats the browser's languages; `?lang=` beats both and sets the cookie.
    let (_, html) = get(&app, "es", "lang=de", "/").await;
    assert_eq!(lang_of(&html), "de");
    let (headers, html) = get(&app, "es", "lang=de", "/?lang=en").await;
    assert_eq!(lang_of(&html), "en");
    let cookie = headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("lang="))
        .expect("the choice is remembered")
        .to_string();
    assert!(cookie.starts_with("lang=en;"), "{cookie}");
    assert!(
        cookie.contains("Path=/") && cookie.contains("Max-Age="),
        "{cookie}"
    );
    let cache = headers
        .get("cache-control")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        !cache.contains("public"),
        "an answer setting a cookie is not shared: {cache}"
    );

    // The switcher: plain links to the same page, the current language marked.
    let (_, html) = get(&app, "", "lang=de", "/help/refunds").await;
    let switcher = html
        .split("<nav class=\"languages\"")
        .nth(1)
        .expect("a switcher");
    assert!(
        switcher.contains("<a href=\"?lang=es\" hreflang=\"es\" lang=\"es\">Español</a>"),
        "{switcher}"
    );
    assert!(
        switcher.contains("<a href=\"?lang=en\" hreflang=\"en\" lang=\"en\">English</a>"),
        "{switcher}"
    );
    assert!(
        switcher.contains("aria-current=\"true\">Deutsch</strong>"),
        "{switcher}"
    );

    // A cached catalog page is kept per language: each language gets its own.
    let (_, german) = get(&app, "", "lang=de", "/regions").await;
    let (_, english) = get(&app, "", "", "/regions").await;
    let (_, spanish) = get(&app, "", "lang=es", "/regions").await;
    assert_eq!(lang_of(&german), "de");
    assert_eq!(lang_of(&english), "en");
    assert_eq!(lang_of(&spanish), "es");

    // Numbers and plurals per language on the plan page.
    let plan = sellable_plan(&app);
    let price = plan.price.expect("priced");
    let (_, html) = get(&app, "", "lang=de", &format!("/plans/{}", plan.id)).await;
    assert!(html.contains(&Lang::De.money(price)), "{html}");
    assert!(html.contains(&storefront::domain::plan::describe_validity(
        Lang::De,
        plan.validity_days
    )));

    // The console stays English, whatever the browser asks for.
    let (headers, html) = get(&app, "de", "lang=de", "/admin/login").await;
    assert_eq!(lang_of(&html), "en");
    let vary = headers
        .get("vary")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(!vary.contains("Accept-Language"), "{vary}");
}

/// The emails of `to` so far, parsed: (subject, text part).
fn emails_to(app: &TestApp, to: &str) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(app.mail_dir.path())
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .map(|p| parse_eml(p))
        .filter(|parsed| parsed["to"].as_str().is_some_and(|t| t.contains(to)))
        .map(|parsed| {
            (
                parsed["subject"].as_str().unwrap_or_default().to_string(),
                part(&parsed, "text/plain").to_string(),
            )
        })
        .collect()
}

async fn wait_for_emails(app: &TestApp, to: &str, n: usize) -> Vec<(String, String)> {
    app.wait_for_emails(to, n).await;
    emails_to(app, to)
}

/// A purchase made in Spanish keeps Spanish for all its emails, whatever language the
/// browser uses later; the lost-link email uses the language of its own request.
async fn an_order_keeps_the_language_it_was_bought_in(backend: Backend) {
    let Some((app, _upstream)) = spawn_shop_with(backend, 20, &[]).await else {
        return;
    };
    let shopper = Browser::default();
    let plan = sellable_plan(&app);
    // The switcher on the plan page, then checkout with the form it shows.
    let headers = shopper
        .get(&app, &format!("/plans/{}?lang=es", plan.id))
        .await
        .assert_status(200)
        .headers;
    assert!(
        headers
            .get_all("set-cookie")
            .iter()
            .any(|c| c.to_str().is_ok_and(|c| c.starts_with("lang=es")))
    );
    let answer = buy(&app, &shopper, &plan, "marta@example.com").await;
    assert_eq!(
        answer.status, 303,
        "the switcher leaves the CSRF token working"
    );
    // The customer switches to German before paying: the purchase is still Spanish.
    shopper.set_cookie("lang", "de");
    let order_path = pay(&app, &shopper, &answer.location())
        .await
        .assert_status(303)
        .location();
    let order = wait_fulfilled(&app, &shopper, &order_path).await;
    assert!(
        order.contains("<html lang=\"de\">"),
        "the page follows the browser"
    );
    let id = purchase_id(&order_path);
    let stored = app
        .db
        .run(move |c| storefront::db::purchases::find(c, &as_id(&id)))
        .await
        .expect("read")
        .expect("purchase");
    assert_eq!(stored.language, "es");

    let emails = wait_for_emails(&app, "marta@example.com", 2).await;
    let subjects: Vec<&str> = emails.iter().map(|(s, _)| s.as_str()).collect();
    assert!(
        subjects.iter().any(|s| s.starts_with("Pago recibido")),
        "{subjects:?}"
    );
    assert!(
        subjects.iter().any(|s| s.starts_with("Tu eSIM está lista")),
        "{subjects:?}"
    );
    for (subject, text) in &emails {
        assert!(text.contains("US$"), "{subject}: {text}");
        assert!(!text.contains("Thank you"), "{subject}: {text}");
    }

    // Lost link asked from a German page: a German email, even for a Spanish order.
    let german = browser_in(Lang::De);
    let form = german.get(&app, "/lost-link").await.body;
    let token = hidden(&form, "csrf_token");
    german
        .post(
            &app,
            "/lost-link",
            &[("csrf_token", &token), ("email", "marta@example.com")],
        )
        .await
        .assert_status(200);
    let emails = wait_for_emails(&app, "marta@example.com", 3).await;
    let (subject, text) = emails
        .iter()
        .find(|(s, _)| s.contains("Links zu deinen Bestellungen"))
        .unwrap_or_else(|| panic!("{emails:?}"));
    assert!(
        text.contains("Jemand (hoffentlich du)"),
        "{subject}: {text}"
    );
}

both_backends!(an_order_keeps_the_language_it_was_bought_in);

/// German is the longest of the three: the plan page and the fulfilled order page fit a
/// phone's width in German, bought through the switcher in a real browser. The pages are
/// shot (`plan-de-phone.png`, `order-de-phone.png`, `footer-de-phone.png`) into the journeys'
/// screenshot folder for a person to look at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn german_pages_fit_a_phone() {
    let Some(browser) = crate::webdriver::Browser::start(crate::webdriver::PHONE).await else {
        return;
    };
    let (app, _upstream) = spawn_shop_with(Backend::Sqlite, 40, &[])
        .await
        .expect("sqlite");
    // A daily plan of several days has the longest texts (per day, in total).
    let snap = app.catalog.snapshot();
    let plan = snap
        .plans()
        .iter()
        .filter(|p| {
            p.is_sellable() && p.price.is_some_and(|c| c.get() >= 100) && p.cost.get() < 20_000
        })
        .max_by_key(|p| {
            (
                p.is_daily && p.validity_days > 1,
                p.kind != storefront::catalog::PlanKind::Local,
            )
        })
        .expect("a sellable plan")
        .clone();
    let dir = crate::journeys_browser::screenshot_dir();

    browser
        .goto(&app.url(&format!("{}?lang=de", plan.labels.href)))
        .await;
    let page = browser.wait_for("<html lang=\"de\">").await;
    assert!(page.contains("Diese eSIM kaufen"), "{page}");
    assert_eq!(
        browser.overflowing().await,
        Vec::<String>::new(),
        "plan page"
    );
    browser.screenshot(&dir.join("plan-de-phone.png")).await;

    browser.type_into("#email", "jonas@example.com").await;
    browser.click("label[for=confirm_device]").await;
    browser.click("#accept_terms").await;
    browser.click("form.checkout button[type=submit]").await;
    browser.wait_for("TESTMODUS").await;
    browser.click("form[action$='/pay'] button").await;
    let started = Instant::now();
    let order_url = loop {
        let source = browser.source().await;
        if source.contains("data-status=\"fulfilled\"") {
            break browser.current_url().await;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{source}");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let here = browser.current_url().await;
        browser.goto(&here).await;
    };
    let order = browser.source().await;
    assert!(order.contains("Installiere deine eSIM"), "{order}");
    assert_eq!(
        browser.overflowing().await,
        Vec::<String>::new(),
        "order page"
    );
    browser.goto(&order_url).await;
    browser.screenshot(&dir.join("order-de-phone.png")).await;
    // The switcher at the foot of the page.
    browser
        .execute("window.scrollTo(0, document.body.scrollHeight); return null;")
        .await;
    browser.screenshot(&dir.join("footer-de-phone.png")).await;
    browser.quit().await;
}
