//! The shop's legal texts (`legal_documents`, one row per document and language) as the owner
//! edited or reviewed them. A document without a row is still its built-in draft.

use diesel::prelude::*;

use crate::db::schema::legal_documents;
use crate::db::{DbConn, DbError};

/// One stored text.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct LegalRow {
    pub document: String,
    pub language: String,
    pub body: String,
    pub reviewed: bool,
    pub version: i64,
    pub updated_at_ms: i64,
}

/// Every stored text.
pub fn all(conn: &mut DbConn) -> Result<Vec<LegalRow>, DbError> {
    Ok(legal_documents::table
        .order((legal_documents::document, legal_documents::language))
        .load(conn)?)
}

/// A number that rises with every change of any text (versions only rise): cheap enough to
/// poll.
pub fn generation(conn: &mut DbConn) -> Result<i64, DbError> {
    let versions: Vec<i64> = legal_documents::table
        .select(legal_documents::version)
        .load(conn)?;
    Ok(versions.iter().sum())
}

/// Writes `body` of `document` in `language`, one version above the stored one (a document
/// without a row is at version 1, its draft), in the caller's transaction; the new version.
pub fn save(
    conn: &mut DbConn,
    document: &str,
    language: &str,
    body: &str,
    reviewed: bool,
    now_ms: i64,
) -> Result<i64, DbError> {
    let stored: Option<i64> = legal_documents::table
        .find((document, language))
        .select(legal_documents::version)
        .first(conn)
        .optional()?;
    let next = stored.unwrap_or(1) + 1;
    let changed = (
        legal_documents::body.eq(body),
        legal_documents::reviewed.eq(reviewed),
        legal_documents::version.eq(next),
        legal_documents::updated_at_ms.eq(now_ms),
    );
    if stored.is_some() {
        diesel::update(legal_documents::table.find((document, language)))
            .set(changed)
            .execute(conn)?;
    } else {
        diesel::insert_into(legal_documents::table)
            .values((
                legal_documents::document.eq(document),
                legal_documents::language.eq(language),
                changed.0,
                changed.1,
                changed.2,
                changed.3,
            ))
            .execute(conn)?;
    }
    if let DbConn::Postgres(pg) = conn {
        // Other replicas reload the texts with the identity they are shown with.
        diesel::sql_query("SELECT pg_notify($1, '')")
            .bind::<diesel::sql_types::Text, _>(crate::db::identity::CHANNEL)
            .execute(pg)?;
    }
    Ok(next)
}
