//! The console's one confirmation step before an action that cannot be undone in a click
//! (a refund, ending an order's links, removing a pricing rule, disabling a promotion code or
//! an account, removing the logo, clearing a display-currency rate, resetting an account's
//! two-factor sign-in). Setting another account's password asks nothing more: the new password
//! typed twice is the confirmation, and sending it again from a confirmation page would put it
//! in a page.
//!
//! Such a form is read as a [`Confirmable`]: the first submission answers with the
//! [`ConfirmPage`], which says what will happen and sends the same fields again with
//! `confirmed=yes` (a plain form, so it works without JavaScript); only that second
//! submission reaches the action. The question is the action's own (its capability or page
//! type says what it does); this module only asks it.

use std::future::Future;
use std::pin::Pin;

use actix_web::{FromRequest, HttpRequest, web};
use askama::Template;

use super::{AdminPage, CSRF_FIELD, checked_form, console_page};

/// The field the confirmation page adds to the form it sends again.
const CONFIRMED_FIELD: &str = "confirmed";

/// What the confirmation page asks.
pub struct Question {
    /// `Remove the pricing rule “country Japan”?`
    pub title: String,
    /// What happens, in a sentence or two.
    pub consequence: String,
    /// The button that goes ahead (`Remove the rule`).
    pub button: &'static str,
    /// Where "Cancel" leads.
    pub back: String,
}

/// A console form (its CSRF token checked, like `CsrfForm`) that runs only once confirmed.
pub struct Confirmable<T> {
    form: T,
    /// The fields as sent, to send again from the confirmation page.
    fields: Vec<(String, String)>,
    action: String,
    confirmed: bool,
}

impl<T> Confirmable<T> {
    pub fn form(&self) -> &T {
        &self.form
    }

    /// The form of a submission that needs no confirmation.
    pub fn into_form(self) -> T {
        self.form
    }

    /// The form, once the owner confirmed it; until then the page asking `question`.
    pub fn confirmed(self, question: Question) -> Result<T, Box<AdminPage>> {
        if self.confirmed {
            return Ok(self.form);
        }
        Err(Box::new(AdminPage::new(ConfirmPage {
            question,
            action: self.action,
            fields: self.fields,
        })))
    }
}

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for Confirmable<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let pairs = web::Form::<Vec<(String, String)>>::from_request(req, payload);
        let req = req.clone();
        Box::pin(async move {
            let web::Form(pairs) = pairs.await?;
            let form: T = checked_form(&req, &pairs)?;
            let confirmed = pairs
                .iter()
                .any(|(name, value)| name == CONFIRMED_FIELD && value == "yes");
            let fields = pairs
                .into_iter()
                .filter(|(name, _)| name != CSRF_FIELD && name != CONFIRMED_FIELD)
                .collect();
            Ok(Self {
                form,
                fields,
                action: req.path().to_string(),
                confirmed,
            })
        })
    }
}

#[derive(Template)]
#[template(path = "admin/confirm.html")]
struct ConfirmPage {
    question: Question,
    action: String,
    fields: Vec<(String, String)>,
}

console_page!(ConfirmPage => "confirm");
