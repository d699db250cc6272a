//! Both backends get the same schema from their own migration folders: same tables, columns
//! (type, nullability, defaults), keys, unique and partial indexes, foreign keys and checks.

use std::collections::BTreeSet;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
use storefront::db::DbConn;

use crate::helpers::{Backend, TestDb};

/// A backend-neutral description of everything that constrains data.
#[derive(Debug, Default, PartialEq, Eq)]
struct SchemaShape {
    tables: BTreeSet<String>,
    /// (table, column, type, not null, has default)
    columns: BTreeSet<(String, String, &'static str, bool, bool)>,
    /// (table, primary key columns)
    primary_keys: BTreeSet<(String, String)>,
    /// (table, index name or "unique constraint", columns, unique, partial)
    indexes: BTreeSet<(String, String, String, bool, bool)>,
    /// (table, column, referenced table, referenced column)
    foreign_keys: BTreeSet<(String, String, String, String)>,
    /// (table, number of CHECK constraints)
    checks: BTreeSet<(String, i64)>,
}

const MIGRATIONS_TABLE: &str = "__diesel_schema_migrations";

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct SqliteColumn {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    ty: String,
    #[diesel(sql_type = Bool)]
    not_null: bool,
    #[diesel(sql_type = Bool)]
    has_default: bool,
    #[diesel(sql_type = Integer)]
    pk: i32,
}

#[derive(QueryableByName)]
struct SqliteIndex {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Bool)]
    unique: bool,
    #[diesel(sql_type = Text)]
    origin: String,
    #[diesel(sql_type = Bool)]
    partial: bool,
}

#[derive(QueryableByName)]
struct SqliteForeignKey {
    #[diesel(sql_type = Text)]
    from: String,
    #[diesel(sql_type = Text)]
    table: String,
    #[diesel(sql_type = Text)]
    to: String,
}

fn sqlite_type(declared: &str, is_rowid: bool) -> &'static str {
    match declared.to_ascii_uppercase().as_str() {
        "TEXT" => "text",
        "BIGINT" => "int8",
        // `INTEGER PRIMARY KEY` (a key of that one column) is SQLite's 64-bit rowid,
        // PostgreSQL's BIGSERIAL.
        "INTEGER" if is_rowid => "int8",
        "INTEGER" => "int4",
        "BOOLEAN" => "bool",
        "BLOB" => "bytes",
        _ => "unknown",
    }
}

fn sqlite_shape(conn: &mut diesel::SqliteConnection) -> SchemaShape {
    let mut shape = SchemaShape::default();
    let tables: Vec<Name> = diesel::sql_query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name <> ?",
    )
    .bind::<Text, _>(MIGRATIONS_TABLE)
    .load(conn)
    .expect("tables");
    for Name { name: table } in tables {
        let columns: Vec<SqliteColumn> = diesel::sql_query(
            "SELECT name, type AS ty, \"notnull\" AS not_null, dflt_value IS NOT NULL AS has_default, pk \
             FROM pragma_table_info(?)",
        )
        .bind::<Text, _>(&table)
        .load(conn)
        .expect("columns");
        let mut pk: Vec<(i32, String)> = Vec::new();
        // Only a primary key of one column is the rowid; in a key of several columns an
        // `INTEGER` is an ordinary 32-bit column.
        let single_key = columns.iter().filter(|c| c.pk > 0).count() == 1;
        for c in &columns {
            let is_pk = c.pk > 0;
            if is_pk {
                pk.push((c.pk, c.name.clone()));
            }
            // A generated key's default is the rowid on SQLite, a sequence on PostgreSQL.
            let has_default = c.has_default && !is_pk;
            shape.columns.insert((
                table.clone(),
                c.name.clone(),
                sqlite_type(&c.ty, is_pk && single_key),
                c.not_null,
                has_default,
            ));
        }
        pk.sort();
        shape.primary_keys.insert((
            table.clone(),
            pk.into_iter().map(|(_, n)| n).collect::<Vec<_>>().join(","),
        ));
        let indexes: Vec<SqliteIndex> = diesel::sql_query(
            "SELECT name, \"unique\" AS \"unique\", origin, partial FROM pragma_index_list(?)",
        )
        .bind::<Text, _>(&table)
        .load(conn)
        .expect("indexes");
        for index in indexes.into_iter().filter(|i| i.origin != "pk") {
            let cols: Vec<Name> =
                // An expression (`lower(email)`) has no column name: `<expr>`, as below.
                diesel::sql_query(
                    "SELECT COALESCE(name, '<expr>') AS name FROM pragma_index_info(?) ORDER BY seqno",
                )
                    .bind::<Text, _>(&index.name)
                    .load(conn)
                    .expect("index columns");
            let cols = cols
                .into_iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
                .join(",");
            let label = if index.origin == "u" {
                "unique constraint".to_string()
            } else {
                index.name
            };
            shape
                .indexes
                .insert((table.clone(), label, cols, index.unique, index.partial));
        }
        let fks: Vec<SqliteForeignKey> = diesel::sql_query(
            "SELECT \"from\" AS \"from\", \"table\" AS \"table\", \"to\" AS \"to\" \
             FROM pragma_foreign_key_list(?)",
        )
        .bind::<Text, _>(&table)
        .load(conn)
        .expect("foreign keys");
        for fk in fks {
            shape
                .foreign_keys
                .insert((table.clone(), fk.from, fk.table, fk.to));
        }
        let sql: Vec<Name> = diesel::sql_query(
            "SELECT sql AS name FROM sqlite_master WHERE type = 'table' AND name = ?",
        )
        .bind::<Text, _>(&table)
        .load(conn)
        .expect("table sql");
        let checks = sql
            .first()
            .map(|s| s.name.to_ascii_uppercase().matches("CHECK (").count())
            .unwrap_or_default();
        shape
            .checks
            .insert((table.clone(), i64::try_from(checks).expect("small")));
        shape.tables.insert(table);
    }
    shape
}

#[derive(QueryableByName)]
struct PgColumn {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    #[diesel(sql_type = Bool)]
    not_null: bool,
    #[diesel(sql_type = Bool)]
    has_default: bool,
    #[diesel(sql_type = Bool)]
    is_pk: bool,
}

#[derive(QueryableByName)]
struct PgIndex {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    index_name: String,
    #[diesel(sql_type = Bool)]
    is_unique: bool,
    #[diesel(sql_type = Bool)]
    is_primary: bool,
    #[diesel(sql_type = Bool)]
    is_partial: bool,
    #[diesel(sql_type = Bool)]
    is_constraint: bool,
    #[diesel(sql_type = Text)]
    columns: String,
}

#[derive(QueryableByName)]
struct PgForeignKey {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    ref_table: String,
    #[diesel(sql_type = Text)]
    ref_column: String,
}

#[derive(QueryableByName)]
struct PgCheckCount {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = BigInt)]
    checks: i64,
}

#[derive(QueryableByName)]
struct PgPrimaryKey {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Nullable<Text>)]
    columns: Option<String>,
}

fn pg_type(data_type: &str) -> &'static str {
    match data_type {
        "text" => "text",
        "bigint" => "int8",
        "bytea" => "bytes",
        "integer" => "int4",
        "boolean" => "bool",
        _ => "unknown",
    }
}

fn postgres_shape(conn: &mut diesel::PgConnection) -> SchemaShape {
    let mut shape = SchemaShape::default();
    let tables: Vec<Name> = diesel::sql_query(
        "SELECT table_name::text AS name FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> $1",
    )
    .bind::<Text, _>(MIGRATIONS_TABLE)
    .load(conn)
    .expect("tables");
    shape.tables = tables.into_iter().map(|t| t.name).collect();

    let columns: Vec<PgColumn> = diesel::sql_query(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text, \
                c.is_nullable = 'NO' AS not_null, c.column_default IS NOT NULL AS has_default, \
                EXISTS (SELECT 1 FROM information_schema.table_constraints tc \
                        JOIN information_schema.key_column_usage k \
                          ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema \
                        WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_name = c.table_name \
                          AND k.column_name = c.column_name AND tc.table_schema = 'public') AS is_pk \
         FROM information_schema.columns c WHERE c.table_schema = 'public'",
    )
    .load(conn)
    .expect("columns");
    for c in columns
        .into_iter()
        .filter(|c| shape.tables.contains(&c.table_name))
    {
        shape.columns.insert((
            c.table_name,
            c.column_name,
            pg_type(&c.data_type),
            c.not_null,
            c.has_default && !c.is_pk,
        ));
    }

    let pks: Vec<PgPrimaryKey> = diesel::sql_query(
        "SELECT t.relname::text AS table_name, \
                (SELECT string_agg(a.attname::text, ',' ORDER BY k.ord) \
                   FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord) \
                   JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns \
         FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid \
         JOIN pg_namespace n ON n.oid = t.relnamespace \
         WHERE n.nspname = 'public' AND ix.indisprimary",
    )
    .load(conn)
    .expect("primary keys");
    for pk in pks
        .into_iter()
        .filter(|p| shape.tables.contains(&p.table_name))
    {
        shape
            .primary_keys
            .insert((pk.table_name, pk.columns.unwrap_or_default()));
    }

    let indexes: Vec<PgIndex> = diesel::sql_query(
        "SELECT t.relname::text AS table_name, i.relname::text AS index_name, \
                ix.indisunique AS is_unique, ix.indisprimary AS is_primary, \
                ix.indpred IS NOT NULL AS is_partial, \
                EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid) AS is_constraint, \
                COALESCE((SELECT string_agg(COALESCE(a.attname::text, '<expr>'), ',' ORDER BY k.ord) \
                   FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord) \
                   LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
                   AND k.attnum <> 0), '') AS columns \
         FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid \
         JOIN pg_class i ON i.oid = ix.indexrelid \
         JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'",
    )
    .load(conn)
    .expect("indexes");
    for index in indexes
        .into_iter()
        .filter(|i| !i.is_primary && shape.tables.contains(&i.table_name))
    {
        let label = if index.is_constraint {
            "unique constraint".to_string()
        } else {
            index.index_name
        };
        shape.indexes.insert((
            index.table_name,
            label,
            index.columns,
            index.is_unique,
            index.is_partial,
        ));
    }

    let fks: Vec<PgForeignKey> = diesel::sql_query(
        "SELECT tc.table_name::text, k.column_name::text, \
                ccu.table_name::text AS ref_table, ccu.column_name::text AS ref_column \
         FROM information_schema.table_constraints tc \
         JOIN information_schema.key_column_usage k \
           ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema \
         JOIN information_schema.constraint_column_usage ccu \
           ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema \
         WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public'",
    )
    .load(conn)
    .expect("foreign keys");
    for fk in fks {
        shape
            .foreign_keys
            .insert((fk.table_name, fk.column_name, fk.ref_table, fk.ref_column));
    }

    let checks: Vec<PgCheckCount> = diesel::sql_query(
        "SELECT t.relname::text AS table_name, \
                (SELECT count(*) FROM pg_constraint c WHERE c.conrelid = t.oid AND c.contype = 'c') AS checks \
         FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace \
         WHERE n.nspname = 'public' AND t.relkind = 'r'",
    )
    .load(conn)
    .expect("checks");
    for c in checks
        .into_iter()
        .filter(|c| shape.tables.contains(&c.table_name))
    {
        shape.checks.insert((c.table_name, c.checks));
    }
    shape
}

async fn shape_of(backend: Backend) -> Option<SchemaShape> {
    let test_db = TestDb::new(backend)?;
    let db = test_db.migrated().await;
    let mut conn = db.get().expect("connection");
    Some(match &mut *conn {
        DbConn::Sqlite(c) => sqlite_shape(c),
        DbConn::Postgres(c) => postgres_shape(c),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_and_postgres_migrations_produce_the_same_schema() {
    let sqlite = shape_of(Backend::Sqlite).await.expect("sqlite always runs");
    let Some(postgres) = shape_of(Backend::Postgres).await else {
        return;
    };
    assert!(
        sqlite.tables.contains("purchases") && sqlite.columns.len() > 20,
        "the shape reader found too little: {sqlite:#?}"
    );
    assert!(
        sqlite.columns.iter().all(|c| c.2 != "unknown"),
        "a SQLite column type has no PostgreSQL counterpart: {:#?}",
        sqlite.columns
    );
    assert_eq!(sqlite.tables, postgres.tables, "tables differ");
    assert_eq!(sqlite.columns, postgres.columns, "columns differ");
    assert_eq!(
        sqlite.primary_keys, postgres.primary_keys,
        "primary keys differ"
    );
    assert_eq!(sqlite.indexes, postgres.indexes, "indexes differ");
    assert_eq!(
        sqlite.foreign_keys, postgres.foreign_keys,
        "foreign keys differ"
    );
    assert_eq!(sqlite.checks, postgres.checks, "check constraints differ");
}

#[test]
fn both_backends_have_the_same_migrations() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let names = |backend: &str| -> BTreeSet<String> {
        std::fs::read_dir(root.join(backend))
            .expect("migration folder")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names("sqlite"), names("postgres"));
}
