//! `/admin/books` (owners): the reconciliation of a period of UTC days against the local copy
//! of the supplier's history, as of its last refresh (`POST /admin/books/refresh` asks the
//! background refresh to run now; no page waits for the supplier), with the owner's
//! explanations of mismatches (`POST /admin/books/explain`), and the CSV exports —
//! the reconciliation, the orders (the order search's filters) and the wallet's transactions
//! with running balances. The exports stream as they are made.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::orders::ListQuery;
use super::{
    AdminPage, CsrfForm, CurrentAdmin, client_addr, console_page, non_empty, require_owner,
    see_other,
};
use crate::books::days::{Counting, Read};
use crate::books::{self, BooksError, CsvChunks, ExplainError, Line, Period, Summary};
use crate::web::error::AppError;
use crate::web::{AppState, filters};

#[derive(Deserialize)]
pub struct PeriodQuery {
    from: Option<String>,
    to: Option<String>,
}

impl PeriodQuery {
    /// The asked period; without one, this month so far (UTC).
    fn period(&self, now_ms: i64) -> Result<Period, books::PeriodError> {
        let today = Period::last_days(now_ms, 1).last;
        let month_start = today.replace_day(1).unwrap_or(today);
        let from = non_empty(self.from.clone()).unwrap_or_else(|| month_start.to_string());
        let to = non_empty(self.to.clone()).unwrap_or_else(|| today.to_string());
        Period::parse(&from, &to).map_err(|e| {
            books::PeriodError(e.0.replace("--from", "“from”").replace("--to", "“to”"))
        })
    }
}

#[derive(Template)]
#[template(path = "admin/books.html")]
struct BooksPage {
    from: String,
    to: String,
    period_error: Option<String>,
    /// When the copy of the supplier's history was last refreshed; `None` before the first.
    as_of_ms: Option<i64>,
    /// Whether the period reaches past the copy's time.
    lags: bool,
    /// A refresh was just asked for.
    refreshing: bool,
    report: Option<Summary>,
    /// The period's days are still being counted: how far that has got.
    counting: Option<Counting>,
    csv_href: String,
    /// An explanation just saved.
    explained: bool,
    /// An explanation refused: the line's key, the reason and the note as it was sent.
    refused: Option<Refusal>,
    /// The period's tax (`orders::tax`), shown once any sale in it was taxed.
    tax: Option<crate::orders::tax::PeriodTax>,
}

struct Refusal {
    key: String,
    message: String,
    note: String,
}

impl BooksPage {
    /// The note to show in the explanation form of `line`: the one just refused, or the
    /// line's saved note.
    fn note_for<'a>(&'a self, line: &'a Line) -> &'a str {
        match &self.refused {
            Some(r) if r.key == line.key => &r.note,
            _ => line.explanation.as_ref().map_or("", |e| e.note.as_str()),
        }
    }

    /// Why the explanation of `line` was just refused.
    fn refused_for(&self, line: &Line) -> Option<&str> {
        self.refused
            .as_ref()
            .filter(|r| r.key == line.key)
            .map(|r| r.message.as_str())
    }
}

console_page!(BooksPage => "books");

#[derive(Deserialize)]
pub struct PageQuery {
    from: Option<String>,
    to: Option<String>,
    explained: Option<String>,
    refreshing: Option<String>,
}

pub async fn page(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<PageQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let query = query.into_inner();
    let period = PeriodQuery {
        from: query.from,
        to: query.to,
    };
    let notice = if query.explained.is_some() {
        Notice::Explained
    } else if query.refreshing.is_some() {
        Notice::Refreshing
    } else {
        Notice::None
    };
    render(&state, &period, notice, None).await
}

/// What the page confirms after a form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Notice {
    None,
    Explained,
    Refreshing,
}

/// The "Refresh now" form, with the period to return to.
#[derive(Deserialize)]
pub struct RefreshForm {
    from: Option<String>,
    to: Option<String>,
}

/// Asks the background refresh of the supplier's history to run now and answers at once: the
/// page shows the new time once the refresh is done.
pub async fn refresh(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<RefreshForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    state.history_wake.ask();
    let period = PeriodQuery {
        from: form.from,
        to: form.to,
    };
    let back = period
        .period(crate::db::now_ms())
        .map(|p| format!("/admin/books?from={}&to={}&refreshing=1", p.first, p.last))
        .unwrap_or_else(|_| "/admin/books?refreshing=1".to_string());
    Ok(see_other(&back).into())
}

/// The explanation form of one line: the line's key and the note, with the period to return
/// to.
#[derive(Deserialize)]
pub struct ExplainForm {
    #[serde(default)]
    key: String,
    #[serde(default)]
    note: String,
    from: Option<String>,
    to: Option<String>,
}

pub async fn explain(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    CsrfForm(form): CsrfForm<ExplainForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let period = PeriodQuery {
        from: form.from.clone(),
        to: form.to.clone(),
    };
    match state
        .books()
        .explain(&admin, &client_addr(&req), &form.key, &form.note)
        .await
    {
        Ok(()) => {
            let back = period
                .period(crate::db::now_ms())
                .map(|p| format!("/admin/books?from={}&to={}&explained=1", p.first, p.last))
                .unwrap_or_else(|_| "/admin/books?explained=1".to_string());
            Ok(see_other(&back).into())
        }
        Err(err @ (ExplainError::NoteRequired | ExplainError::NoteTooLong)) => {
            let refusal = Refusal {
                key: form.key,
                message: super::refused(err, "Nothing was saved."),
                note: form.note,
            };
            render(&state, &period, Notice::None, Some(refusal)).await
        }
        Err(err) => Err(err.into()),
    }
}

/// The books page of the period `query` asks for, from the copy of the supplier's history as
/// it stands.
async fn render(
    state: &AppState,
    query: &PeriodQuery,
    notice: Notice,
    refused: Option<Refusal>,
) -> Result<AdminPage, AppError> {
    let mut view = BooksPage {
        from: query.from.clone().unwrap_or_default(),
        to: query.to.clone().unwrap_or_default(),
        period_error: None,
        as_of_ms: None,
        lags: false,
        refreshing: notice == Notice::Refreshing,
        report: None,
        counting: None,
        csv_href: String::new(),
        explained: notice == Notice::Explained,
        refused,
        tax: None,
    };
    let period = match query.period(crate::db::now_ms()) {
        Ok(period) => period,
        Err(err) => {
            view.period_error = Some(format!("{err}."));
            return Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, view));
        }
    };
    view.from = period.first.to_string();
    view.to = period.last.to_string();
    view.csv_href = format!(
        "/admin/books/reconciliation.csv?from={}&to={}",
        period.first, period.last
    );
    let tax =
        crate::orders::tax::period_tax(&state.orders, period.start_ms(), period.end_ms()).await?;
    view.tax = (tax.sales > 0 || tax.credited_tax.get() != 0).then_some(tax);
    let books = state.books();
    if let Some(copied) = books.summary_for_console(period, &state.book_fill).await? {
        view.lags = copied.lags(period);
        view.as_of_ms = Some(copied.as_of_ms);
        match copied.summary {
            Read::Ready(summary) => view.report = Some(*summary),
            Read::Counting(counting) => view.counting = Some(counting),
        }
    }
    let status = if view.refused.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    Ok(AdminPage::with_status(status, view))
}

/// A CSV body fed by `chunks`.
struct CsvBody(CsvChunks);

impl MessageBody for CsvBody {
    type Error = BooksError;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    /// Empty chunks are skipped: an empty chunk would end a chunked body early.
    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        loop {
            match self.0.poll_recv(cx) {
                Poll::Ready(Some(Ok(chunk))) if chunk.is_empty() => {}
                other => return other.map(|chunk| chunk.map(|c| c.map(Bytes::from))),
            }
        }
    }
}

/// A streamed CSV download named `filename`: never cached, never compressed (the body holds
/// customers' data beside values a visitor can vary).
fn csv_response(filename: &str, chunks: CsvChunks) -> HttpResponse {
    let mut response = HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(CsvBody(chunks));
    response.headers_mut().insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    response
}

pub async fn reconciliation_csv(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<PeriodQuery>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let period = query
        .period(crate::db::now_ms())
        .map_err(|e| AppError::BadRequest(format!("{e}.")))?;
    let Some(chunks) = state.books().reconciliation_csv(period).await? else {
        return Err(not_copied_yet());
    };
    Ok(csv_response(
        &format!("reconciliation-{}-{}.csv", period.first, period.last),
        chunks,
    ))
}

pub async fn orders_csv(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let filter = super::orders::export_filter(&query.search()?, crate::db::now_ms())?;
    Ok(csv_response("orders.csv", state.books().orders_csv(filter)))
}

pub async fn wallet_csv(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let Some(chunks) = state.books().wallet_csv().await? else {
        return Err(not_copied_yet());
    };
    Ok(csv_response("wallet-transactions.csv", chunks))
}

/// The answer to an export of the supplier's side before its first copy.
fn not_copied_yet() -> AppError {
    AppError::Conflict(
        "The supplier's history has not been copied yet. Use “Refresh now” on the books page and try again in a minute.".to_string(),
    )
}
