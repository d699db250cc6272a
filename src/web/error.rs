//! The one place where failures become HTTP answers.
//!
//! Every handler returns `Result<_, AppError>`. A 4xx answer says precisely what was wrong and
//! is safe to show; a 5xx answer is opaque and carries only the request id, while its cause is
//! logged once, here.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};

use crate::db::DbError;
use crate::db::purchases::TransitionError;
use crate::i18n;
use crate::orders::actions::ActionError;
use crate::orders::confirm::DeliveryError;
use crate::orders::page::OrderPageError;
use crate::payments::demo::SessionClosed;
use crate::staff::AccountsError;
use crate::staff::password::HashError;
use crate::staff::totp::TotpError;
use crate::staff::users::UsersError;
use crate::wallet::WalletError;
use crate::web::page_cache::SlotError;
use crate::web::pages::{self, ErrorPage};
use crate::web::request_id;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("not found")]
    NotFound,
    /// Any address under `/orders` that does not open an order: an unknown id, or a known one
    /// without the private link's token or cookie (another device). One answer for both, so
    /// it says nothing about which orders exist, only how to open one's own.
    #[error("order not found")]
    OrderNotFound,
    #[error("{0}")]
    BadRequest(String),
    /// A machine endpoint (`/metrics`) without the right bearer token.
    #[error("missing or wrong bearer token")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Conflict(String),
    #[error("too many requests")]
    TooManyRequests,
    /// A dependency (the database, the upstream) cannot serve right now; retrying may work.
    #[error("temporarily unavailable: {0}")]
    Unavailable(String),
    /// A bug or an unexpected failure. The message goes to the log, never to the client.
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::Internal(cause.to_string())
    }

    /// What the person sees about this failure: precise for 4xx, opaque for 5xx.
    pub fn public_message(&self) -> String {
        self.title_and_message().1
    }

    /// The title and message in the language of the request (English in the console).
    fn title_and_message(&self) -> (String, String) {
        let t = i18n::t;
        match self {
            Self::NotFound => (t("error-not-found-title"), t("error-not-found")),
            Self::OrderNotFound => (t("error-order-not-found-title"), t("error-order-not-found")),
            Self::BadRequest(msg) => (t("error-bad-request-title"), msg.clone()),
            Self::Unauthorized => (t("error-forbidden-title"), t("error-unauthorized")),
            Self::Forbidden(msg) => (t("error-forbidden-title"), msg.clone()),
            Self::Conflict(msg) => (t("error-conflict-title"), msg.clone()),
            Self::TooManyRequests => (t("error-too-many-title"), t("error-too-many")),
            Self::Unavailable(_) => (t("temporarily-unavailable"), t("error-unavailable")),
            Self::Internal(_) => (t("error-internal-title"), t("error-internal")),
        }
    }
}

impl From<DbError> for AppError {
    fn from(err: DbError) -> Self {
        if err.is_not_found() {
            Self::NotFound
        } else if err.is_unstorable_text() {
            Self::BadRequest(i18n::t("error-unstorable-text"))
        } else if err.is_unavailable() {
            Self::Unavailable(err.to_string())
        } else {
            Self::Internal(err.to_string())
        }
    }
}

impl From<crate::orders::trip::TripError> for AppError {
    fn from(err: crate::orders::trip::TripError) -> Self {
        use crate::orders::trip::TripError as E;
        match err {
            E::NotFound => Self::NotFound,
            E::Date(refused) => Self::BadRequest(i18n::t(refused.message_id())),
            E::Db(db) => db.into(),
        }
    }
}

impl From<crate::books::BooksError> for AppError {
    /// The books need upstream: one that cannot be read is a 503, said plainly.
    fn from(err: crate::books::BooksError) -> Self {
        match err {
            crate::books::BooksError::Db(db) => db.into(),
            crate::books::BooksError::Upstream(cause) => Self::Unavailable(cause.to_string()),
        }
    }
}

impl From<crate::catalog::promo_codes::PromoCodeError> for AppError {
    fn from(err: crate::catalog::promo_codes::PromoCodeError) -> Self {
        use crate::catalog::promo_codes::PromoCodeError as E;
        match err {
            E::BelowFloor(plans) => Self::Conflict(format!(
                "This code would sell {} below cost plus the minimum margin: {}. Nothing was saved.",
                match plans.len() {
                    1 => "1 plan".to_string(),
                    n => format!("{n} plans"),
                },
                plans
                    .iter()
                    .map(|p| format!(
                        "{} ({}): {} → {}, floor {}",
                        p.name, p.plan_id, p.list, p.discounted, p.floor
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            E::EmptyScope(scope) => Self::BadRequest(format!(
                "No plan in the catalog matches {scope}. Nothing was saved."
            )),
            E::Exists(code) => Self::Conflict(format!(
                "A code {code} exists already. Codes cannot be reused; choose another."
            )),
            E::Unknown(_) | E::NotFound(_) => Self::NotFound,
            E::NotDisabled(code) => Self::Conflict(format!("The code {code} is enabled already.")),
            E::EndsBeforeStart => {
                Self::BadRequest("The last day comes before the first. Nothing was saved.".into())
            }
            E::CapBelowUses { used, cap } => Self::BadRequest(format!(
                "The code was used {used} times already: a cap of {cap} cannot hold. Nothing was saved."
            )),
            E::Db(cause) => cause.into(),
        }
    }
}

impl From<crate::catalog::region_names::RegionNameError> for AppError {
    fn from(err: crate::catalog::region_names::RegionNameError) -> Self {
        use crate::catalog::region_names::RegionNameError as E;
        match err {
            E::UnknownRegion(_) => Self::NotFound,
            E::TooLong(_) | E::Control(_) => {
                let text = err.to_string();
                let mut chars = text.chars();
                let first = chars.next().map(|c| c.to_uppercase().to_string());
                Self::BadRequest(format!(
                    "{}{}. Nothing was saved.",
                    first.unwrap_or_default(),
                    chars.as_str()
                ))
            }
            E::Db(cause) => cause.into(),
        }
    }
}

impl From<crate::books::ExplainError> for AppError {
    fn from(err: crate::books::ExplainError) -> Self {
        use crate::books::ExplainError as E;
        match err {
            E::NotOwner => {
                Self::Forbidden("This needs an owner account. Ask an owner to do it.".into())
            }
            E::UnknownLine => Self::NotFound,
            E::NoteRequired | E::NoteTooLong => {
                let text = err.to_string();
                let mut chars = text.chars();
                let first = chars.next().map(|c| c.to_uppercase().to_string());
                Self::BadRequest(format!(
                    "{}{}. Nothing was saved.",
                    first.unwrap_or_default(),
                    chars.as_str()
                ))
            }
            E::Db(cause) => cause.into(),
        }
    }
}

impl From<UsersError> for AppError {
    fn from(err: UsersError) -> Self {
        match err {
            UsersError::NotOwner => {
                Self::Forbidden("This needs an owner account. Ask an owner to do it.".into())
            }
            UsersError::NotFound => Self::NotFound,
            UsersError::EmailTaken => {
                Self::Conflict("An account with this email already exists.".into())
            }
            UsersError::LastOwner => Self::Conflict(
                "This is the last active owner, and the console must keep one. Make another account an owner first."
                    .into(),
            ),
            UsersError::OwnPassword => Self::BadRequest(
                "Change your own password under “Your account”: it asks for your current one."
                    .into(),
            ),
            UsersError::WrongPassword => Self::BadRequest(
                "Your current password is not right. Nothing was changed.".into(),
            ),
            UsersError::Throttled => Self::TooManyRequests,
            UsersError::Invalid(message) => Self::BadRequest(message),
            UsersError::Hash(cause) => cause.into(),
            UsersError::Db(cause) => cause.into(),
        }
    }
}

impl From<TotpError> for AppError {
    fn from(err: TotpError) -> Self {
        match err {
            TotpError::NotOwner => {
                Self::Forbidden("This needs an owner account. Ask an owner to do it.".into())
            }
            TotpError::NotFound => Self::NotFound,
            TotpError::AlreadyOn => Self::Conflict("TOTP is already on for this account.".into()),
            TotpError::NotOn => Self::Conflict("TOTP is not on for this account.".into()),
            TotpError::WrongCode => {
                Self::BadRequest("That code is wrong or was already used.".into())
            }
            TotpError::Throttled => Self::TooManyRequests,
            TotpError::OwnerWithout => Self::Conflict(
                "Turn TOTP on for your own account first (Your account → Two-factor sign-in): requiring it for everyone would otherwise sign you out too."
                    .into(),
            ),
            TotpError::Unreadable(_) | TotpError::Seal => Self::internal(err),
            TotpError::Db(cause) => cause.into(),
        }
    }
}

impl From<OrderPageError> for AppError {
    fn from(err: OrderPageError) -> Self {
        match err {
            OrderPageError::Db(db) => db.into(),
            OrderPageError::Installation(cause) => Self::internal(cause),
        }
    }
}

impl From<HashError> for AppError {
    /// Every password hashing slot busy is a prompt "try again", not a failure.
    fn from(err: HashError) -> Self {
        match err {
            HashError::Busy => Self::Unavailable(err.to_string()),
            other => Self::internal(other),
        }
    }
}

impl From<AccountsError> for AppError {
    fn from(err: AccountsError) -> Self {
        match err {
            AccountsError::Hash(cause) => cause.into(),
            AccountsError::Db(db) => db.into(),
            AccountsError::EmailTaken => {
                Self::Conflict("An account with this email already exists.".into())
            }
        }
    }
}

impl From<SlotError> for AppError {
    /// A cached page that cannot be split or compressed: a bug.
    fn from(err: SlotError) -> Self {
        Self::internal(err)
    }
}

impl From<SessionClosed> for AppError {
    /// Pay or Decline on a demo payment that is already settled or expired: 409, nothing done.
    fn from(err: SessionClosed) -> Self {
        Self::Conflict(err.to_string())
    }
}

impl From<DeliveryError> for AppError {
    fn from(err: DeliveryError) -> Self {
        match err {
            DeliveryError::BadSignature(message) => Self::BadRequest(message),
            DeliveryError::Transition(err) => err.into(),
        }
    }
}

impl From<ActionError> for AppError {
    fn from(err: ActionError) -> Self {
        match err {
            ActionError::NotFound => Self::NotFound,
            ActionError::NotOwner => {
                Self::Forbidden("This needs an owner account. Ask an owner to do it.".into())
            }
            ActionError::Conflict(message) => Self::Conflict(message),
            ActionError::Db(db) => db.into(),
        }
    }
}

impl From<TransitionError> for AppError {
    /// A refused change is the client's conflict with the purchase's state; the rest is ours.
    fn from(err: TransitionError) -> Self {
        match err {
            TransitionError::Missing(_) => Self::NotFound,
            TransitionError::Refused(refusal) => Self::Conflict(refusal.to_string()),
            TransitionError::Db(db) => db.into(),
        }
    }
}

impl From<WalletError> for AppError {
    fn from(err: WalletError) -> Self {
        match err {
            WalletError::ThresholdNotValid => Self::BadRequest(err.to_string()),
            WalletError::TopupNotFound => Self::NotFound,
            WalletError::StoredKey(_) => Self::internal(err),
            WalletError::Db(db) => db.into(),
        }
    }
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::NotFound | Self::OrderNotFound => StatusCode::NOT_FOUND,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let request_id = request_id::current();
        match self {
            Self::Internal(cause) => {
                tracing::error!(request.id = %request_id, error = %cause, "request failed");
            }
            Self::Unavailable(cause) => {
                tracing::warn!(request.id = %request_id, error = %cause, "dependency unavailable");
            }
            _ => {}
        }
        let (title, message) = self.title_and_message();
        let page = ErrorPage {
            status: status.as_u16(),
            title,
            message: &message,
            request_id: &request_id,
            lost_link: matches!(self, Self::OrderNotFound),
        };
        let mut response = pages::render(status, &page);
        if matches!(self, Self::TooManyRequests | Self::Unavailable(_)) {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
        }
        if matches!(self, Self::Unauthorized) {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"metrics\""),
            );
        }
        response
    }
}

/// Maps extractor failures (a malformed path, query, form or JSON body; the configs in
/// [`crate::web::configure`]) to a 400 page in plain words. The parser's own message names
/// fields and types of our code, so it goes to the debug log, not to the page.
pub fn bad_input(err: impl std::fmt::Display) -> actix_web::Error {
    tracing::debug!(error = %err, "request input not understood");
    AppError::BadRequest(i18n::t("error-bad-input")).into()
}
