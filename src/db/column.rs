//! Domain values as column values of [`DbConn`](super::DbConn), the connection over both
//! backends: the domain crate reads and binds them on SQLite and PostgreSQL
//! (`storefront_domain::column`), and the connection's own backend hands each value to the one
//! it runs on. Reading still checks the value as the type's constructor does.

use diesel::backend::Backend;
use diesel::deserialize::{self, FromSql};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{BigInt, Text};

use super::MultiBackend;
use crate::domain::purchase::{PurchaseId, PurchaseStatus};
use crate::domain::{Cents, Email};

/// `FromSql` on the connection over both backends, for a `$ty` each backend reads as `$st`.
macro_rules! read_as {
    ($ty:ty, $st:ty) => {
        impl FromSql<$st, MultiBackend> for $ty {
            fn from_sql(
                value: <MultiBackend as Backend>::RawValue<'_>,
            ) -> deserialize::Result<Self> {
                value.from_sql::<Self, $st>()
            }
        }
    };
}

/// `ToSql` as text on the connection over both backends, for a `$ty` each backend binds.
macro_rules! bind_text {
    ($ty:ty) => {
        impl ToSql<Text, MultiBackend> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, MultiBackend>) -> serialize::Result {
                out.set_value((Text, self));
                Ok(IsNull::No)
            }
        }
    };
}

read_as!(PurchaseId, Text);
bind_text!(PurchaseId);

read_as!(Email, Text);
bind_text!(Email);

read_as!(PurchaseStatus, Text);
bind_text!(PurchaseStatus);

read_as!(Cents, BigInt);
