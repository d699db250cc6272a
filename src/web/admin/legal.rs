//! `/admin/legal` (owners): the shop's terms, privacy notice, refund and withdrawal policy and
//! imprint in every language, their state (draft or reviewed), and an editor with a preview.
//! The rules are `shop::legal`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;

use super::{
    AdminPage, CsrfForm, CurrentAdmin, NoFields, SavedQuery, client_addr, console_page,
    require_owner, see_other,
};
use crate::i18n::Lang;
use crate::shop::legal::{LegalError, MAX_BODY_BYTES, render_markdown};
use crate::shop::{Document, LegalText};
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::filters;

/// The largest form the editor sends: the longest text, URL-encoded.
pub const FORM_LIMIT: usize = MAX_BODY_BYTES * 3 + 4 * 1024;

/// One text in the list.
struct Row {
    document: &'static str,
    language: &'static str,
    href: String,
    public_href: String,
    reviewed: bool,
    version: i64,
    /// When the owner last saved or reviewed it; `None` for a draft.
    changed_at_ms: Option<i64>,
}

impl Row {
    fn new(text: &LegalText) -> Self {
        Self {
            document: text.document.console_name(),
            language: text.lang.name(),
            href: edit_href(text.document, text.lang),
            public_href: format!("{}?lang={}", text.document.href(), text.lang.code()),
            reviewed: text.reviewed,
            version: text.version,
            changed_at_ms: text.updated_at_ms,
        }
    }
}

fn edit_href(document: Document, lang: Lang) -> String {
    format!("/admin/legal/{}/{}", document.slug(), lang.code())
}

#[derive(Template)]
#[template(path = "admin/legal.html")]
struct ListPage {
    rows: Vec<Row>,
    drafts: usize,
}

#[derive(Template)]
#[template(path = "admin/legal_edit.html")]
struct EditPage {
    title: String,
    action: String,
    public_href: String,
    body: String,
    reviewed: bool,
    version: i64,
    /// The text as customers would see it, when the owner asked for a preview.
    preview: Option<String>,
    error: Option<String>,
    saved: Option<&'static str>,
    max_kb: usize,
}

console_page!(ListPage => "legal", EditPage => "legal");

impl EditPage {
    fn new(text: &LegalText) -> Self {
        Self {
            title: format!("{} ({})", text.document.console_name(), text.lang.name()),
            action: edit_href(text.document, text.lang),
            public_href: format!("{}?lang={}", text.document.href(), text.lang.code()),
            body: text.body.clone(),
            reviewed: text.reviewed,
            version: text.version,
            preview: None,
            error: None,
            saved: None,
            max_kb: MAX_BODY_BYTES / 1024,
        }
    }
}

pub async fn list(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let identity = state.identity.current();
    let rows: Vec<Row> = Document::ALL
        .into_iter()
        .flat_map(|document| Lang::ALL.into_iter().map(move |lang| (document, lang)))
        .map(|(document, lang)| Row::new(&state.legal.text(document, lang, &identity)))
        .collect();
    let drafts = rows.iter().filter(|r| !r.reviewed).count();
    Ok(AdminPage::new(ListPage { rows, drafts }))
}

/// `/admin/legal/{document}/{lang}`: a document that does not exist is a 404.
fn parse_path(path: &(String, String)) -> Result<(Document, Lang), AppError> {
    let document = Document::parse(&path.0).ok_or(AppError::NotFound)?;
    let lang = Lang::ALL
        .into_iter()
        .find(|l| l.code() == path.1)
        .ok_or(AppError::NotFound)?;
    Ok((document, lang))
}

pub async fn edit(
    state: web::Data<AppState>,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<(String, String)>,
    query: web::Query<SavedQuery>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let (document, lang) = parse_path(&path)?;
    let text = state.legal.text(document, lang, &state.identity.current());
    let mut page = EditPage::new(&text);
    page.saved = query.notice(&[
        (
            "edited",
            "Saved. Customers see the new text now; it counts as reviewed.",
        ),
        ("reviewed", "Marked as reviewed. The draft banner is gone."),
    ]);
    Ok(AdminPage::new(page))
}

#[derive(Deserialize)]
pub struct EditForm {
    #[serde(default)]
    body: String,
    /// `preview` shows the text without saving it.
    #[serde(default)]
    action: String,
}

pub async fn save(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<(String, String)>,
    CsrfForm(form): CsrfForm<EditForm>,
) -> Result<AdminPage, AppError> {
    require_owner(&admin)?;
    let (document, lang) = parse_path(&path)?;
    let text = state.legal.text(document, lang, &state.identity.current());
    if form.action == "preview" {
        let mut page = EditPage::new(&text);
        page.preview = Some(render_markdown(&form.body));
        page.body = form.body;
        return Ok(AdminPage::new(page));
    }
    match state
        .legal
        .save(&admin, &client_addr(&req), document, lang, &form.body)
        .await
    {
        Ok(_) => Ok(see_other(&format!("{}?saved=edited", edit_href(document, lang))).into()),
        Err(LegalError::Database(err)) => Err(err.into()),
        Err(refused) => {
            let mut page = EditPage::new(&text);
            page.error = Some(format!("Not saved: {refused}."));
            page.body = form.body;
            Ok(AdminPage::with_status(StatusCode::BAD_REQUEST, page))
        }
    }
}

pub async fn review(
    state: web::Data<AppState>,
    req: HttpRequest,
    CurrentAdmin(admin): CurrentAdmin,
    path: web::Path<(String, String)>,
    _: CsrfForm<NoFields>,
) -> Result<HttpResponse, AppError> {
    require_owner(&admin)?;
    let (document, lang) = parse_path(&path)?;
    match state
        .legal
        .mark_reviewed(
            &admin,
            &client_addr(&req),
            document,
            lang,
            &state.identity.current(),
        )
        .await
    {
        Ok(_) => Ok(see_other(&format!(
            "{}?saved=reviewed",
            edit_href(document, lang)
        ))),
        Err(LegalError::Database(err)) => Err(err.into()),
        Err(refused) => Err(AppError::BadRequest(refused.to_string())),
    }
}
