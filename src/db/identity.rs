//! The shop's identity row (`shop_identity`, one row, id 1) as the console saved it.

use diesel::prelude::*;

use crate::db::schema::shop_identity;
use crate::db::{DbConn, DbError};

/// The channel other replicas hear an identity change on, so they reload it at once.
pub const CHANNEL: &str = "storefront_identity";

/// The stored identity, as written.
#[derive(Debug, Clone, Queryable)]
pub struct IdentityRow {
    pub id: i64,
    pub name: String,
    pub accent: String,
    pub support_email: String,
    pub support_phone: String,
    pub legal_name: String,
    pub address: String,
    pub registration: String,
    pub logo_kind: Option<String>,
    pub logo: Option<Vec<u8>>,
    pub version: i64,
    pub updated_at_ms: i64,
    /// The console's time zone name; empty for the configured default.
    pub time_zone: String,
}

/// The texts of the identity, as the console saves them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdentityTexts {
    pub name: String,
    pub accent: String,
    pub support_email: String,
    pub support_phone: String,
    pub legal_name: String,
    pub address: String,
    pub registration: String,
}

/// The stored identity, if the owner ever saved one.
pub fn find(conn: &mut DbConn) -> Result<Option<IdentityRow>, DbError> {
    Ok(shop_identity::table.find(1_i64).first(conn).optional()?)
}

/// The stored version (0 before the first save): cheap enough to poll.
pub fn version(conn: &mut DbConn) -> Result<i64, DbError> {
    Ok(shop_identity::table
        .find(1_i64)
        .select(shop_identity::version)
        .first(conn)
        .optional()?
        .unwrap_or(0))
}

/// Writes `texts` (and keeps the logo), raising the version; in the caller's transaction.
pub fn save_texts(conn: &mut DbConn, texts: &IdentityTexts, now_ms: i64) -> Result<(), DbError> {
    let next = version(conn)? + 1;
    let updated = diesel::update(shop_identity::table.find(1_i64))
        .set((
            shop_identity::name.eq(&texts.name),
            shop_identity::accent.eq(&texts.accent),
            shop_identity::support_email.eq(&texts.support_email),
            shop_identity::support_phone.eq(&texts.support_phone),
            shop_identity::legal_name.eq(&texts.legal_name),
            shop_identity::address.eq(&texts.address),
            shop_identity::registration.eq(&texts.registration),
            shop_identity::version.eq(next),
            shop_identity::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(shop_identity::table)
            .values((
                shop_identity::id.eq(1_i64),
                shop_identity::name.eq(&texts.name),
                shop_identity::accent.eq(&texts.accent),
                shop_identity::support_email.eq(&texts.support_email),
                shop_identity::support_phone.eq(&texts.support_phone),
                shop_identity::legal_name.eq(&texts.legal_name),
                shop_identity::address.eq(&texts.address),
                shop_identity::registration.eq(&texts.registration),
                shop_identity::version.eq(next),
                shop_identity::updated_at_ms.eq(now_ms),
            ))
            .execute(conn)?;
    }
    announce(conn)
}

/// Sets the console's time zone name, raising the version; the row must exist (the caller
/// saves the texts first).
pub fn set_time_zone(conn: &mut DbConn, name: &str, now_ms: i64) -> Result<(), DbError> {
    let next = version(conn)? + 1;
    diesel::update(shop_identity::table.find(1_i64))
        .set((
            shop_identity::time_zone.eq(name),
            shop_identity::version.eq(next),
            shop_identity::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    announce(conn)
}

/// Sets (or with `None` removes) the logo of the stored identity, raising the version; the
/// row must exist (the caller saves the texts first).
pub fn set_logo(
    conn: &mut DbConn,
    logo: Option<(&str, &[u8])>,
    now_ms: i64,
) -> Result<(), DbError> {
    let next = version(conn)? + 1;
    diesel::update(shop_identity::table.find(1_i64))
        .set((
            shop_identity::logo_kind.eq(logo.map(|(kind, _)| kind)),
            shop_identity::logo.eq(logo.map(|(_, bytes)| bytes)),
            shop_identity::version.eq(next),
            shop_identity::updated_at_ms.eq(now_ms),
        ))
        .execute(conn)?;
    announce(conn)
}

/// `NOTIFY` on [`CHANNEL`] when the transaction commits; nothing on SQLite.
fn announce(conn: &mut DbConn) -> Result<(), DbError> {
    if let DbConn::Postgres(pg) = conn {
        diesel::sql_query("SELECT pg_notify($1, '')")
            .bind::<diesel::sql_types::Text, _>(CHANNEL)
            .execute(pg)?;
    }
    Ok(())
}
