//! Who a unit is for, when the buyer said: a name to show beside the eSIM and an address
//! for the unit's own email. One optional row per unit (`travellers.purchase_id`).

use diesel::prelude::*;

use crate::db::schema::{purchases, travellers};
use crate::db::{DbConn, DbError};
use crate::domain::Email;
use crate::domain::purchase::PurchaseId;
use crate::domain::units::Traveller;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = travellers)]
pub struct TravellerRow {
    pub purchase_id: PurchaseId,
    pub name: Option<String>,
    pub email: Option<String>,
}

/// Records who unit `purchase_id` is for, in the caller's transaction (the checkout's).
pub fn insert(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    traveller: &Traveller,
) -> Result<(), DbError> {
    diesel::insert_into(travellers::table)
        .values((
            travellers::purchase_id.eq(purchase_id),
            travellers::name.eq(traveller.name.as_deref()),
            travellers::email.eq(traveller.email.as_ref().map(|e| e.as_str())),
        ))
        .execute(conn)?;
    Ok(())
}

/// Makes `email` the address of unit `purchase_id`'s traveller (its name kept), in the
/// caller's transaction.
pub fn set_email(
    conn: &mut DbConn,
    purchase_id: &PurchaseId,
    email: &Email,
) -> Result<(), DbError> {
    let updated = diesel::update(travellers::table.find(purchase_id))
        .set(travellers::email.eq(email.as_str()))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(travellers::table)
            .values((
                travellers::purchase_id.eq(purchase_id),
                travellers::email.eq(email.as_str()),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Who unit `purchase_id` is for, if the buyer said.
pub fn find(conn: &mut DbConn, purchase_id: &PurchaseId) -> Result<Option<TravellerRow>, DbError> {
    Ok(travellers::table
        .find(purchase_id)
        .select(TravellerRow::as_select())
        .first(conn)
        .optional()?)
}

/// The travellers named for the units of checkout `checkout_id`.
pub fn of_checkout(
    conn: &mut DbConn,
    checkout_id: &PurchaseId,
) -> Result<Vec<TravellerRow>, DbError> {
    Ok(travellers::table
        .inner_join(purchases::table.on(purchases::id.eq(travellers::purchase_id)))
        .filter(purchases::checkout_id.eq(checkout_id))
        .select(TravellerRow::as_select())
        .load(conn)?)
}
