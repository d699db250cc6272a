//! The domain's values as column values on SQLite and PostgreSQL, the way vaultwarden's ids are
//! newtypes down to the column: a row struct holds a [`PurchaseId`], a [`PurchaseStatus`], an
//! [`Email`] or [`Cents`], and a query binds one where it binds a `&str` or an `i64`.
//!
//! Reading checks the value as the type's constructor does: text that is no status (or no
//! email, no id) fails the query with a deserialization error, never a panic and never a guess.
//! Binding hands the value's text or integer to diesel's own `str`/`i64` expression (or `ToSql`,
//! where diesel binds the value itself: an `Option`, a list), so the SQL is what it was with
//! plain values.
//!
//! These impls are here, behind the `diesel` feature, because the orphan rule keeps a foreign
//! trait's impls beside the type; the database crate adds the same for its connection over both
//! backends (`db::column`). Nothing here opens a connection or names a table.

use diesel::backend::Backend;
use diesel::deserialize::{self, FromSql, Queryable};
use diesel::expression::AsExpression;
use diesel::pg::Pg;
use diesel::serialize::{self, Output, ToSql};
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::Sqlite;

use crate::purchase::{PurchaseId, PurchaseStatus};
use crate::{Cents, Email};

/// `FromSql` on each backend and `Queryable` for a row field: diesel reads `$raw` for SQL type
/// `$st`, `$convert` makes the value (its error fails the row).
macro_rules! read_as {
    ($ty:ty, $st:ty, $raw:ty, $convert:expr) => {
        impl FromSql<$st, Sqlite> for $ty {
            fn from_sql(value: <Sqlite as Backend>::RawValue<'_>) -> deserialize::Result<Self> {
                let raw = <$raw as FromSql<$st, Sqlite>>::from_sql(value)?;
                Ok($convert(raw)?)
            }
        }

        impl FromSql<$st, Pg> for $ty {
            fn from_sql(value: <Pg as Backend>::RawValue<'_>) -> deserialize::Result<Self> {
                let raw = <$raw as FromSql<$st, Pg>>::from_sql(value)?;
                Ok($convert(raw)?)
            }
        }

        impl<DB> Queryable<$st, DB> for $ty
        where
            DB: Backend,
            Self: FromSql<$st, DB>,
        {
            type Row = Self;

            fn build(row: Self) -> deserialize::Result<Self> {
                Ok(row)
            }
        }
    };
}

/// Binds `&$ty` as its text (`as_str`), nullable or not, alone or in a list (`eq_any`).
macro_rules! bind_text {
    ($ty:ty) => {
        impl ToSql<Text, Sqlite> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
                <str as ToSql<Text, Sqlite>>::to_sql(self.as_str(), out)
            }
        }

        impl ToSql<Text, Pg> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                <str as ToSql<Text, Pg>>::to_sql(self.as_str(), out)
            }
        }

        impl<'a> AsExpression<Text> for &'a $ty {
            type Expression = <&'a str as AsExpression<Text>>::Expression;

            fn as_expression(self) -> Self::Expression {
                <&'a str as AsExpression<Text>>::as_expression(self.as_str())
            }
        }

        impl<'a> AsExpression<Nullable<Text>> for &'a $ty {
            type Expression = <&'a str as AsExpression<Nullable<Text>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                <&'a str as AsExpression<Nullable<Text>>>::as_expression(self.as_str())
            }
        }
    };
}

/// Binds an owned `$ty` (an `Insertable` row inserted by value) as its `String`.
macro_rules! bind_owned_text {
    ($ty:ty) => {
        impl AsExpression<Text> for $ty {
            type Expression = <String as AsExpression<Text>>::Expression;

            fn as_expression(self) -> Self::Expression {
                <String as AsExpression<Text>>::as_expression(String::from(self))
            }
        }

        impl AsExpression<Nullable<Text>> for $ty {
            type Expression = <String as AsExpression<Nullable<Text>>>::Expression;

            fn as_expression(self) -> Self::Expression {
                <String as AsExpression<Nullable<Text>>>::as_expression(String::from(self))
            }
        }
    };
}

read_as!(PurchaseId, Text, String, PurchaseId::try_from);
bind_text!(PurchaseId);
bind_owned_text!(PurchaseId);

read_as!(Email, Text, String, Email::try_from);
bind_text!(Email);
bind_owned_text!(Email);

read_as!(PurchaseStatus, Text, String, PurchaseStatus::try_from);
bind_text!(PurchaseStatus);

impl AsExpression<Text> for PurchaseStatus {
    type Expression = <&'static str as AsExpression<Text>>::Expression;

    fn as_expression(self) -> Self::Expression {
        <&'static str as AsExpression<Text>>::as_expression(self.as_str())
    }
}

read_as!(Cents, BigInt, i64, |raw| Ok::<_, std::convert::Infallible>(
    Cents::new(raw)
));

impl AsExpression<BigInt> for Cents {
    type Expression = <i64 as AsExpression<BigInt>>::Expression;

    fn as_expression(self) -> Self::Expression {
        <i64 as AsExpression<BigInt>>::as_expression(self.get())
    }
}

impl AsExpression<Nullable<BigInt>> for Cents {
    type Expression = <i64 as AsExpression<Nullable<BigInt>>>::Expression;

    fn as_expression(self) -> Self::Expression {
        <i64 as AsExpression<Nullable<BigInt>>>::as_expression(self.get())
    }
}
