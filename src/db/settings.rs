//! The shop's numeric settings that owners change in the console (`shop_settings`).

use diesel::prelude::*;

use crate::db::schema::shop_settings;
use crate::db::{DbConn, DbError};

/// A numeric setting, if it was ever set.
pub fn setting(conn: &mut DbConn, name: &str) -> Result<Option<i64>, DbError> {
    Ok(shop_settings::table
        .find(name)
        .select(shop_settings::value)
        .first(conn)
        .optional()?)
}

pub fn set_setting(conn: &mut DbConn, name: &str, value: i64, now_ms: i64) -> Result<(), DbError> {
    crate::with_inner!(&mut *conn, |c| {
        diesel::insert_into(shop_settings::table)
            .values((
                shop_settings::name.eq(name),
                shop_settings::value.eq(value),
                shop_settings::updated_at_ms.eq(now_ms),
            ))
            .on_conflict(shop_settings::name)
            .do_update()
            .set((
                shop_settings::value.eq(value),
                shop_settings::updated_at_ms.eq(now_ms),
            ))
            .execute(c)
    })?;
    Ok(())
}
