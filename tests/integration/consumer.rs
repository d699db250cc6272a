//! A consumer buying through HTTP against a real `storefront serve` process: plan page, CSRF
//! cookie and token, checkout, demo payment, each step retried while the shop restarts (a
//! person pressing reload). Used by the crash tests.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::per_unit::Wanted;

/// Run with the checkout's id once the checkout is made and before it is paid (to arm the
/// upstream for one of its eSIMs).
pub type BeforePay = Arc<dyn Fn(String) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// `f` as a [`BeforePay`].
pub fn before_pay<F, Fut>(f: F) -> BeforePay
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    Arc::new(move |checkout| Box::pin(f(checkout)))
}

/// One consumer: plan page, checkout, demo payment. Retries each step while the shop is down
/// (a consumer pressing reload), bounded in time. Returns the purchase id and its cookie.
pub async fn buy_and_pay(
    client: &reqwest::Client,
    shop: &str,
    plan: &str,
    n: usize,
) -> (String, String) {
    buy_order_and_pay(client, shop, plan, n, &Wanted::one(), None).await
}

/// [`buy_and_pay`] for `wanted`: several eSIMs, travellers' names and addresses;
/// `before_pay` runs between the checkout and its payment.
pub async fn buy_order_and_pay(
    client: &reqwest::Client,
    shop: &str,
    plan: &str,
    n: usize,
    wanted: &Wanted,
    before_pay: Option<&BeforePay>,
) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        assert!(Instant::now() < deadline, "purchase {n} never completed");
        match try_buy_and_pay(client, shop, plan, n, wanted, before_pay).await {
            Some(done) => return done,
            None => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

async fn try_buy_and_pay(
    client: &reqwest::Client,
    shop: &str,
    plan: &str,
    n: usize,
    wanted: &Wanted,
    before_pay: Option<&BeforePay>,
) -> Option<(String, String)> {
    let page = client
        .get(format!("{shop}/plans/{plan}"))
        .send()
        .await
        .ok()?;
    let csrf_cookie = cookie(&page, "csrf")?;
    let html = page.text().await.ok()?;
    let token = hidden(&html, "csrf_token")?;
    let price = hidden(&html, "expected_price_cents")?;
    let email = format!("buyer{n}@example.com");
    let mut form = vec![
        ("csrf_token", token.as_str()),
        ("plan_id", plan),
        ("email", email.as_str()),
        ("confirm_device", "yes"),
        ("accept_terms", "yes"),
        ("expected_price_cents", price.as_str()),
    ];
    let fields = wanted.form();
    form.extend(fields.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let res = client
        .post(format!("{shop}/checkout"))
        .header("cookie", format!("csrf={csrf_cookie}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(&form))
        .send()
        .await
        .ok()?;
    if res.status() != 303 {
        return None;
    }
    let order_cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("order_"))?
        .split(';')
        .next()?
        .to_string();
    let pay_page = res.headers().get("location")?.to_str().ok()?.to_string();
    let session = pay_page.rsplit('/').next()?.to_string();
    let id = order_cookie
        .split('=')
        .next()?
        .trim_start_matches("order_")
        .to_string();
    if let Some(before_pay) = before_pay {
        before_pay(id.clone()).await;
    }
    // Pay, retrying through restarts. A repeated Pay after a lost answer changes nothing: the
    // payment is already made, which the page says with a 409, and the consumer moves on.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if Instant::now() > deadline {
            return None;
        }
        let paid = client
            .post(format!("{shop}/demo-pay/{session}/pay"))
            .header("cookie", format!("csrf={csrf_cookie}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode(&[("csrf_token", token.as_str())]))
            .send()
            .await;
        if let Ok(res) = paid
            && (res.status() == 303 || res.status() == 409)
        {
            return Some((id, order_cookie));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn encode(form: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish()
}

fn cookie(res: &reqwest::Response, name: &str) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix(&format!("{name}=")))
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
}

pub fn hidden(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    html.split(&marker)
        .nth(1)?
        .split('"')
        .next()
        .map(str::to_string)
}
