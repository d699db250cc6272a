//! `/admin/orders`: search and page through purchases; `/admin/orders/{id}`: one purchase's
//! timeline, upstream state, outbox jobs and attempts, payment and refund; and the actions on
//! it, each with a reason and written to the audit log with its effect. A refused action (no
//! reason, or one the order's state does not allow) answers with the order page again: the
//! message beside the form, the typed reason kept.
//!
//! The console never shows installation values: no activation code, no QR, and of the ICCID
//! only the last four digits kept in `installations.iccid_last4`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, Confirmable, CsrfForm, CurrentAdmin, Pager, Question, client_addr, console_page,
    list_href, require_owner, see_other,
};
use crate::db::outbox;
use crate::db::purchases::Purchase;
use crate::domain::Email;
use crate::domain::PurchaseId;
use crate::domain::purchase::{PurchaseEvent, PurchaseStatus};
use crate::i18n::Lang;
use crate::orders::actions::{self, ActionError, OrderAction};
use crate::orders::console::{
    self, ABANDONED, Cursor, DateField, OrderDetail, OrderFilter, Page, Search,
};
use crate::web::error::AppError;
use crate::web::{AppState, filters, shop};

const PAGE_SIZE: u32 = 25;
const MAX_REASON_CHARS: usize = 1000;
/// The email correction's URL slug and form id.
const CORRECT_EMAIL: &str = "correct-email";

#[derive(Deserialize)]
pub struct ListQuery {
    q: Option<String>,
    status: Option<String>,
    /// First day, `YYYY-MM-DD` (UTC).
    from: Option<String>,
    /// Last day, `YYYY-MM-DD` (UTC), included whole.
    to: Option<String>,
    /// The page's number as shown ("Page 2"); which rows it holds is the cursor's.
    page: Option<u32>,
    /// The rows after this place in the list ([`Cursor`]).
    older: Option<String>,
    /// The rows before this place in the list.
    newer: Option<String>,
}

impl ListQuery {
    /// Which rows the address asks for; a cursor that is not one is a 400.
    fn page(&self) -> Result<Page, AppError> {
        let parse = |text: &str| {
            Cursor::parse(text)
                .ok_or_else(|| AppError::BadRequest("That page of orders does not exist.".into()))
        };
        match (self.older.as_deref(), self.newer.as_deref()) {
            (Some(at), _) => Ok(Page::Older(parse(at)?)),
            (None, Some(at)) => Ok(Page::Newer(parse(at)?)),
            (None, None) => Ok(Page::First),
        }
    }

    /// The search the query asks for; an unknown status is a 400.
    pub(super) fn search(&self) -> Result<Search, AppError> {
        Search::parse(
            self.q.as_deref(),
            self.status.as_deref(),
            self.from.as_deref(),
            self.to.as_deref(),
        )
        .map_err(AppError::BadRequest)
    }
}

/// The filter for an export; a refused date range is a 400 with the page's message.
pub(super) fn export_filter(search: &Search, now_ms: i64) -> Result<OrderFilter, AppError> {
    search
        .filter(now_ms)
        .map_err(|refusal| AppError::BadRequest(refusal.message))
}

/// The query string of `search` (no page), for links that keep it.
fn query_string(search: &Search) -> String {
    list_href(
        "",
        &[
            ("q", search.text.as_deref()),
            ("status", search.status.as_deref()),
            ("from", search.from.as_deref()),
            ("to", search.to.as_deref()),
        ],
        1,
    )
}

struct StatusOption {
    value: &'static str,
    label: &'static str,
    selected: bool,
}

#[derive(Template)]
#[template(path = "admin/orders.html")]
struct OrdersPage {
    query: String,
    statuses: Vec<StatusOption>,
    /// The status filter asks for abandoned checkouts only.
    abandoned_selected: bool,
    /// Abandoned checkouts that match but are not listed (the default).
    hidden_abandoned: i64,
    /// There may be more than `hidden_abandoned`: only the first were counted.
    hidden_abandoned_at_least: bool,
    show_abandoned_href: String,
    from: String,
    to: String,
    /// Why the dates were refused; nothing is listed then.
    date_error: Option<String>,
    from_invalid: bool,
    to_invalid: bool,
    rows: Vec<Purchase>,
    /// When the page was read: which rows count as abandoned.
    now_ms: i64,
    /// The page number, from 1.
    page: u32,
    newer_href: Option<String>,
    older_href: Option<String>,
    /// The same search as CSV (owners).
    csv_href: String,
}

console_page!(OrdersPage => "orders", OrderPage => "orders");

pub async fn list(
    state: web::Data<AppState>,
    _: CurrentAdmin,
    query: web::Query<ListQuery>,
) -> Result<AdminPage, AppError> {
    let query = query.into_inner();
    let pager = Pager::from_query(query.page);
    let page = query.page()?;
    let search = query.search()?;
    let Search {
        text,
        status,
        from,
        to,
    } = search.clone();
    let mut page_view = OrdersPage {
        query: text.clone().unwrap_or_default(),
        statuses: PurchaseStatus::ALL
            .iter()
            .map(|s| StatusOption {
                value: s.as_str(),
                label: s.label(),
                selected: status.as_deref() == Some(s.as_str()),
            })
            .collect(),
        abandoned_selected: status.as_deref() == Some(ABANDONED),
        hidden_abandoned: 0,
        hidden_abandoned_at_least: false,
        show_abandoned_href: String::new(),
        from: from.clone().unwrap_or_default(),
        to: to.clone().unwrap_or_default(),
        date_error: None,
        from_invalid: false,
        to_invalid: false,
        rows: Vec::new(),
        now_ms: crate::db::now_ms(),
        page: pager.number,
        newer_href: None,
        older_href: None,
        csv_href: format!("/admin/books/orders.csv{}", query_string(&search)),
    };
    let filter = match search.filter(page_view.now_ms) {
        Ok(filter) => filter,
        Err(refusal) => {
            page_view.from_invalid = matches!(refusal.field, DateField::From | DateField::Both);
            page_view.to_invalid = matches!(refusal.field, DateField::To | DateField::Both);
            page_view.date_error = Some(refusal.message);
            return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page_view));
        }
    };
    let found = console::orders_page(&state.orders, filter, page, i64::from(PAGE_SIZE)).await?;
    // The number only labels the page: the first page is 1 however it was reached, and a
    // page with newer rows before it is at least 2.
    let number = if found.has_newer {
        pager.number.max(2)
    } else {
        1
    };
    let filters = [
        ("q", text.as_deref()),
        ("status", status.as_deref()),
        ("from", from.as_deref()),
        ("to", to.as_deref()),
    ];
    page_view.hidden_abandoned = found.hidden_abandoned.checkouts;
    page_view.hidden_abandoned_at_least = found.hidden_abandoned.at_least;
    page_view.show_abandoned_href = list_href(
        "/admin/orders",
        &[
            ("q", text.as_deref()),
            ("status", Some(ABANDONED)),
            ("from", from.as_deref()),
            ("to", to.as_deref()),
        ],
        1,
    );
    page_view.page = number;
    page_view.older_href = found.rows.last().filter(|_| found.has_older).map(|last| {
        let at = Cursor::of(last).to_string();
        list_href("/admin/orders", &with(&filters, ("older", &at)), number + 1)
    });
    // Page 2's newer page is the first page, which needs no cursor.
    page_view.newer_href = found.rows.first().filter(|_| found.has_newer).map(|first| {
        if number <= 2 {
            list_href("/admin/orders", &filters, 1)
        } else {
            let at = Cursor::of(first).to_string();
            list_href("/admin/orders", &with(&filters, ("newer", &at)), number - 1)
        }
    });
    page_view.rows = found.rows;
    Ok(AdminPage::new(page_view))
}

/// `filters` and one more.
fn with<'a>(
    filters: &[(&'a str, Option<&'a str>)],
    extra: (&'a str, &'a str),
) -> Vec<(&'a str, Option<&'a str>)> {
    let mut all = filters.to_vec();
    all.push((extra.0, Some(extra.1)));
    all
}

#[derive(Template)]
#[template(path = "admin/order.html")]
struct OrderPage {
    /// The order and what the console reads with it, as the capability answers.
    detail: OrderDetail,
    status_label: String,
    /// The plan's title and id, or the stored id when the catalog no longer has it.
    plan: String,
    has_queued_job: bool,
    open_alerts: usize,
    refundable: bool,
    refund_keep_cost: bool,
    /// Why neither refund is offered for a paid order, in the table's words.
    refund_blocked: Option<String>,
    /// A stopped or dead placement can be queued again under its stored key.
    redrivable: bool,
    /// Fulfilled: the delivery email can be sent again.
    resendable: bool,
    /// Days the links keep working after the order is fulfilled or ended.
    link_days: u32,
    /// Paid but not fulfilled: a new link can be emailed (fulfilled orders have the resend).
    link_sendable: bool,
    /// The action just done (`?done=…`), for its banner.
    done: Option<String>,
    /// The action just refused, shown on the page it was sent from.
    refusal: Option<Refusal>,
}

/// An order action the console refused, with what the admin typed, so the page can say why
/// beside the form and keep the text.
struct Refusal {
    /// The action's URL slug: which form it came from.
    slug: &'static str,
    message: String,
    /// The reason as typed.
    reason: String,
    /// The new address as typed (the email correction's form).
    email: String,
    /// The reason itself was wrong (400), so the field is marked; otherwise the order's state
    /// refused the action (409).
    field: bool,
}

impl OrderPage {
    /// The refusal of the form for `slug`, if that form's action was just refused.
    fn refused(&self, slug: &str) -> Option<&Refusal> {
        self.refusal.as_ref().filter(|r| r.slug == slug)
    }

    /// The address to put back into the email correction's form.
    fn typed_email(&self) -> &str {
        self.refused(CORRECT_EMAIL).map_or("", |r| r.email.as_str())
    }

    /// The text to put back into the form for `slug`.
    fn typed(&self, slug: &str) -> &str {
        self.refused(slug).map_or("", |r| r.reason.as_str())
    }

    /// Whether the form for `slug` must be marked invalid.
    fn invalid(&self, slug: &str) -> bool {
        self.refused(slug).is_some_and(|r| r.field)
    }
}

#[derive(Deserialize)]
pub struct DetailQuery {
    done: Option<String>,
}

pub async fn detail(
    state: web::Data<AppState>,
    _: CurrentAdmin,
    id: web::Path<String>,
    query: web::Query<DetailQuery>,
) -> Result<AdminPage, AppError> {
    let id = PurchaseId::parse(id.into_inner()).map_err(|_| AppError::NotFound)?;
    let page = detail_page(&state, id, query.into_inner().done, None).await?;
    Ok(AdminPage::new(page))
}

/// The order page, as shown after a GET or after a refused action.
async fn detail_page(
    state: &AppState,
    id: PurchaseId,
    done: Option<String>,
    refusal: Option<Refusal>,
) -> Result<OrderPage, AppError> {
    let detail = console::order_detail(&state.orders, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let purchase = &detail.purchase;
    let plan = match state.catalog.snapshot().plan(&purchase.plan_id) {
        Some(p) => format!("{} ({})", shop::plan_title(p, Lang::En), p.id),
        None => purchase.plan_id.clone(),
    };
    let status = purchase.status;
    let facts = detail.facts;
    // The console offers exactly what the transition table allows.
    let refund_offer = |keep_cost| status.on(&PurchaseEvent::AdminRefund { keep_cost, facts });
    let (refund_offer, keep_cost_offer) = (refund_offer(false), refund_offer(true));
    Ok(OrderPage {
        status_label: purchase.status_label(crate::db::now_ms()),
        plan,
        has_queued_job: detail.jobs.iter().any(|(j, _)| j.state == outbox::QUEUED),
        open_alerts: detail
            .alerts
            .iter()
            .filter(|a| a.resolved_at_ms.is_none())
            .count(),
        refundable: refund_offer.is_ok(),
        refund_keep_cost: keep_cost_offer.is_ok(),
        refund_blocked: match (&refund_offer, &keep_cost_offer) {
            (Err(why), Err(_)) if status.was_paid() && status != PurchaseStatus::Refunded => {
                Some(why.reason.to_string())
            }
            _ => None,
        },
        redrivable: status.on(&PurchaseEvent::AdminRedrive { facts }).is_ok(),
        resendable: status == PurchaseStatus::Fulfilled,
        link_days: state.settings.order_link_days,
        link_sendable: status.was_paid() && status != PurchaseStatus::Fulfilled,
        done,
        refusal,
        detail,
    })
}

#[derive(Deserialize)]
pub struct ActionForm {
    #[serde(default)]
    reason: String,
}

/// What is wrong with an action's reason, if anything.
fn reason_problem(reason: &str) -> Option<String> {
    if reason.is_empty() {
        Some("Give a reason: it goes into the audit log.".to_string())
    } else if reason.chars().count() > MAX_REASON_CHARS {
        Some(format!(
            "Keep the reason to {MAX_REASON_CHARS} characters or fewer."
        ))
    } else {
        None
    }
}

/// What an action that cannot be taken back does to order `id`, asked before it runs.
fn question(act: OrderAction, id: &PurchaseId) -> Question {
    let number = crate::domain::purchase::order_number(id.as_str());
    let (title, consequence, button) = match act {
        OrderAction::RefundKeepCost => (
            format!("Refund order {number} and keep the cost?"),
            "The customer gets back what they paid for this eSIM; the supplier's cost stays with the shop as a loss. This cannot be taken back.",
            "Refund the customer",
        ),
        OrderAction::RevokeLinks => (
            format!("End every private link of order {number}?"),
            "The customer's links and the browsers they opened stop showing the order at once. Send a new link to give them access again.",
            "End the links",
        ),
        _ => (
            format!("Refund order {number}?"),
            "The customer gets back what they paid for this eSIM, which is then never delivered. This cannot be taken back.",
            "Refund the customer",
        ),
    };
    Question {
        title,
        consequence: consequence.to_string(),
        button,
        back: format!("/admin/orders/{id}"),
    }
}

pub async fn action(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<(String, String)>,
    form: Confirmable<ActionForm>,
) -> Result<AdminPage, AppError> {
    let (id, slug) = path.into_inner();
    let id = PurchaseId::parse(id).map_err(|_| AppError::NotFound)?;
    let act = OrderAction::parse(&slug).ok_or(AppError::NotFound)?;
    if act.owner_only() {
        require_owner(&admin)?;
    }
    let typed = form.form().reason.clone();
    let reason = typed.trim().to_string();
    if let Some(message) = reason_problem(&reason) {
        let refusal = Refusal {
            slug: act.slug(),
            message,
            reason: typed,
            email: String::new(),
            field: true,
        };
        let page = detail_page(&state, id.clone(), None, Some(refusal)).await?;
        return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page));
    }
    if act.cannot_be_undone()
        && let Err(ask) = form.confirmed(question(act, &id))
    {
        return Ok(*ask);
    }
    let client = client_addr(&req);
    let outcome = actions::perform(&state.orders, &admin, &client, &id, act, reason).await;
    let done = match outcome {
        Ok(done) => done,
        Err(ActionError::NotFound) => return Err(AppError::NotFound),
        Err(ActionError::NotOwner) => {
            return Err(AppError::Forbidden(
                "This needs an owner account. Ask an owner to do it.".into(),
            ));
        }
        Err(ActionError::Conflict(message)) => {
            let refusal = Refusal {
                slug: act.slug(),
                message: message.to_string(),
                reason: typed,
                email: String::new(),
                field: false,
            };
            let page = detail_page(&state, id.clone(), None, Some(refusal)).await?;
            return Ok(AdminPage::with_status(StatusCode::CONFLICT, page));
        }
        Err(ActionError::Db(err)) => return Err(err.into()),
    };
    // The buyer's page shows the change at once (other replicas within their page TTL).
    state.order_pages.forget(&id);
    if act.queues_work() {
        state.outbox.waker().wake();
    }
    Ok(see_other(&format!("/admin/orders/{id}?done={done}")).into())
}

#[derive(Deserialize)]
pub struct CorrectEmailForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    reason: String,
}

/// `POST /admin/orders/{id}/correct-email` (owner and support): the customer's address
/// corrected, and a new link sent to it ([`actions::correct_email`]).
pub async fn correct_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    id: web::Path<String>,
    CsrfForm(form): CsrfForm<CorrectEmailForm>,
) -> Result<AdminPage, AppError> {
    let id = PurchaseId::parse(id.into_inner()).map_err(|_| AppError::NotFound)?;
    let reason = form.reason.trim().to_string();
    let refusal = |message: String, field: bool| Refusal {
        slug: CORRECT_EMAIL,
        message,
        reason: form.reason.clone(),
        email: form.email.clone(),
        field,
    };
    let checked = Email::parse(form.email.trim())
        .map_err(|_| "Enter the customer's address, like name@example.com.".to_string())
        .and_then(|email| reason_problem(&reason).map_or(Ok(email), Err));
    let email = match checked {
        Ok(email) => email,
        Err(message) => {
            let page = detail_page(&state, id, None, Some(refusal(message, true))).await?;
            return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page));
        }
    };
    let client = client_addr(&req);
    let done =
        match actions::correct_email(&state.orders, &admin, &client, &id, email, reason).await {
            Ok(done) => done,
            Err(ActionError::NotFound) => return Err(AppError::NotFound),
            Err(ActionError::Conflict(message)) => {
                let page = detail_page(&state, id, None, Some(refusal(message, false))).await?;
                return Ok(AdminPage::with_status(StatusCode::CONFLICT, page));
            }
            Err(ActionError::NotOwner) => {
                return Err(AppError::Forbidden(
                    "This needs an owner account. Ask an owner to do it.".into(),
                ));
            }
            Err(ActionError::Db(err)) => return Err(err.into()),
        };
    state.order_pages.forget(&id);
    state.outbox.waker().wake();
    Ok(see_other(&format!("/admin/orders/{id}?done={}", done.slug())).into())
}
