#!/usr/bin/env python3
"""Grows a shop's database to the size of a shop that has sold for years.

    scale_db.py sqlite:PATH   --purchases N [--days D] [--customers C]
    scale_db.py postgres://…  --purchases N [--days D] [--customers C]

The database must hold a few hundred purchases made through the app itself (scripts/bench
--only scale makes them: paid, fulfilled, refunded, with their events, jobs, attempts, links,
installations and alerts). Each of them is copied until there are N purchases, spread back over
D days (1,095: three years), with every row that belongs to a purchase copied with it:

- the purchase id gets a new first eight characters (so order numbers differ: the copy k of
  seed i is the 32-bit multiplicative hash of k*S+i, distinct for every copy);
- unique text columns (references, idempotency keys, token hashes, nonces, upstream ids) get
  "~k" appended; integer ids are offset by k times the seed's largest id;
- receipts and credit notes are numbered on: copy k's number is the seed's plus k times the
  seed's largest, and the counters continue after the grown series;
- every *_ms timestamp moves back by k steps of D days / copies, so the copies cover the period;
- emails are spread over C customers ("c123.name@…"), so a customer has several orders; the
  search columns (lower-case address, order key) follow the copied address and id;
- the books' side grows with them: the shop's copy of the supplier's orders and transactions
  (filled by `storefront reconcile` on the seed shop) and the owner's explanations are copied
  the same way, the supplier's time text following its moved reading, so every copied purchase
  has its supplier order and wallet movements and a period reconciles as the seed's did; the
  copy is marked refreshed and read whole, and the console's time zone is set to Europe/Berlin
  when none was chosen.

Each table is grown by one INSERT … SELECT over a series of k (a recursive CTE on SQLite,
generate_series on PostgreSQL), then ANALYZE. Run it on a stopped shop. Columns are read from the
database, so a new column is copied as it is without changing this script. Sealed installations
are copied byte for byte: they open only for their original purchase id (it is their associated
data), so only the seed's order pages show an installation; the console never opens them.
"""

import argparse
import subprocess
import sys
import time

# Tables whose rows belong to a purchase, parents first.
TABLES = [
    "checkouts",
    "purchases",
    "travellers",
    "purchase_events",
    "payment_events",
    "refunds",
    "installations",
    "outbox_jobs",
    "outbox_attempts",
    "alerts",
    "order_link_tokens",
    "promo_redemptions",
    "receipts",
    "receipt_lines",
    "credit_notes",
]

# Documents numbered from a counter row (`document_counters`): copy k's number is the seed's
# plus k times the seed's largest, and the counter continues after the largest at the end.
NUMBERED = {"receipts": "receipt", "credit_notes": "credit_note"}

# Tables the books read beside the purchases: the shop's copy of the supplier's orders and
# wallet transactions (an order's id and reference, and a transaction's reference, get the same
# "~k" as the copied purchase's upstream order id and reference, so copy k of the books still
# matches) and the owner's explanations of mismatches (keyed by such a line).
BOOKS_TABLES = [
    "supplier_orders",
    "supplier_transactions",
    "book_explanations",
]

# Text columns that are unique (alone or with the purchase id) and are not the purchase id.
UNIQUE_TEXT = {
    "reference",
    "idempotency_key",
    "upstream_order_id",
    "access_token_hash",
    "payment_session_id",
    "payment_reference",
    "esim_id",
    "provider_refund_id",
    "token_hash",
    "nonce",
    "line_key",
}

HASH = 2654435761  # Knuth's multiplicative hash: a bijection on 32-bit values


class Sqlite:
    name = "sqlite"

    def __init__(self, path):
        import sqlite3

        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=OFF")

    def one(self, sql):
        return self.conn.execute(sql).fetchone()[0]

    def run(self, sql):
        self.conn.executescript(sql)

    def columns(self, table):
        return [(r[1], r[2].upper()) for r in self.conn.execute(f"PRAGMA table_info({table})")]

    def series(self, n):
        return (
            f"WITH RECURSIVE ks(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM ks WHERE k < {n})"
        )

    def hex8(self, expr):
        return f"printf('%08x', ({expr}) % 4294967296)"

    def iso(self, ms):
        return f"strftime('%Y-%m-%dT%H:%M:%SZ', ({ms}) / 1000, 'unixepoch')"

    def is_integer(self, kind):
        return "INT" in kind

    def is_text(self, kind):
        return "TEXT" in kind or "CHAR" in kind


class Postgres:
    name = "postgres"

    def __init__(self, url):
        self.url = url

    def psql(self, sql, *flags):
        out = subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *flags, self.url],
            input=sql,
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            sys.exit(f"psql failed: {out.stderr.strip()}")
        return out.stdout

    def one(self, sql):
        return self.psql(sql, "-At").strip().splitlines()[0]

    def run(self, sql):
        self.psql(sql)

    def columns(self, table):
        rows = self.psql(
            "SELECT column_name, data_type FROM information_schema.columns "
            f"WHERE table_name = '{table}' AND table_schema = current_schema() "
            "ORDER BY ordinal_position",
            "-At",
            "-F",
            "\t",
        )
        return [tuple(line.split("\t")) for line in rows.strip().splitlines()]

    def series(self, n):
        return f"WITH ks(k) AS (SELECT generate_series(1, {n})::bigint)"

    def hex8(self, expr):
        return f"lpad(to_hex((({expr}) % 4294967296)::bigint), 8, '0')"

    def iso(self, ms):
        return (
            f"to_char(to_timestamp(({ms}) / 1000) AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        )

    def is_integer(self, kind):
        return kind in ("bigint", "integer", "smallint")

    def is_text(self, kind):
        return kind in ("text", "character varying")


def expression(db, table, column, kind, offsets, step_ms, customers):
    """What column `column` of copy k of a row holds."""
    if (column == "id" and table in ("purchases", "checkouts", "receipts")) or column in (
        "purchase_id",
        "checkout_id",
        "receipt_id",
    ):
        # A seed checkout holds one unit and has its id, so copy k of both gets one new id.
        source = "id" if column == "id" else column
        new_id = db.hex8(f"(ks.k * seeds.n + seeds.idx) * {HASH}")
        return f"CASE WHEN t.{source} IS NULL THEN NULL ELSE {new_id} || substr(t.{source}, 9) END"
    if column == "id" and db.is_integer(kind):
        return f"t.id + ks.k * {offsets[table]}"
    if column == "id":
        return f"t.id || '~' || ks.k"
    if column == "number" and table in NUMBERED:
        return f"t.number + ks.k * {offsets['number:' + table]}"
    if column == "job_id":
        return f"t.job_id + ks.k * {offsets['outbox_jobs']}"
    if column in UNIQUE_TEXT:
        return f"t.{column} || '~' || ks.k"
    if column == "email" and table == "purchases":
        return f"'c' || ((ks.k * seeds.n + seeds.idx) % {customers}) || '.' || t.email"
    if column == "email_lower" and table == "purchases":
        return f"'c' || ((ks.k * seeds.n + seeds.idx) % {customers}) || '.' || t.email_lower"
    if column == "order_key" and table == "purchases":
        # The order number's key is the new id's first eight characters.
        return db.hex8(f"(ks.k * seeds.n + seeds.idx) * {HASH}")
    if column.endswith("_ms") and db.is_integer(kind):
        return f"t.{column} - ks.k * {step_ms}"
    if column == "created_at" and table in ("supplier_orders", "supplier_transactions"):
        # The supplier's own text moves with its reading, so the books see one time.
        moved = db.iso(f"t.created_at_ms - ks.k * {step_ms}")
        return f"CASE WHEN t.created_at_ms IS NULL THEN t.created_at ELSE {moved} END"
    return f"t.{column}"


def grow(db, table, copies, offsets, step_ms, customers):
    """Copies every row of `table` `copies` times in one statement (which reads the table as
    it was before the statement, so only the seed's rows are copied)."""
    columns = db.columns(table)
    if not columns:
        print(f"  {table}: not in this database, skipped")
        return
    names = [c for c, _ in columns]
    exprs = [expression(db, table, c, k, offsets, step_ms, customers) for c, k in columns]
    if table in ("purchases", "checkouts", "receipts"):
        join = "JOIN scale_seeds seeds ON seeds.id = t.id"
    elif "receipt_id" in names:
        join = "JOIN scale_seeds seeds ON seeds.id = t.receipt_id"
    elif "purchase_id" in names:
        # A row without a purchase (a wallet alert, the provider's own event) is copied too.
        join = "LEFT JOIN scale_seeds seeds ON seeds.id = t.purchase_id"
    else:
        join = ""
    sql = (
        f"INSERT INTO {table} ({', '.join(names)}) {db.series(copies)} "
        f"SELECT {', '.join(exprs)} FROM {table} t CROSS JOIN ks {join};"
    )
    started = time.time()
    db.run(sql)
    print(f"  {table}: {time.time() - started:.1f} s", flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--purchases", type=int, required=True)
    parser.add_argument("--days", type=int, default=1095)
    parser.add_argument("--customers", type=int, default=300_000)
    args = parser.parse_args(argv)
    if args.url.startswith("postgres"):
        db = Postgres(args.url)
    else:
        url = args.url
        db = Sqlite(url[len("sqlite://"):] if url.startswith("sqlite://") else url.removeprefix("sqlite:"))

    seed = int(db.one("SELECT count(*) FROM purchases"))
    if seed == 0:
        sys.exit("the database has no purchases to grow from")
    copies = -(-args.purchases // seed) - 1
    if copies <= 0:
        print(f"{seed} purchases already; nothing to do")
        return
    step_ms = args.days * 86_400_000 // copies
    offsets = {}
    for table in TABLES + BOOKS_TABLES:
        if any(c == "id" for c, _ in db.columns(table)) and table not in ("purchases", "checkouts"):
            kind = dict(db.columns(table))["id"]
            if db.is_integer(kind):
                offsets[table] = int(db.one(f"SELECT coalesce(max(id), 0) + 1 FROM {table}"))
    for table in NUMBERED:
        if db.columns(table):
            offsets["number:" + table] = int(db.one(f"SELECT coalesce(max(number), 0) FROM {table}"))
    print(f"{seed} purchases × {copies + 1} over {args.days} days ({db.name})")
    started = time.time()
    # A plain table (PostgreSQL runs each step in its own session), dropped at the end.
    db.run(
        "DROP TABLE IF EXISTS scale_seeds; CREATE TABLE scale_seeds AS "
        "SELECT id, row_number() OVER (ORDER BY id) - 1 AS idx, "
        f"{seed} AS n FROM purchases; CREATE UNIQUE INDEX scale_seeds_id ON scale_seeds (id);"
    )
    for table in TABLES:
        grow(db, table, copies, offsets, step_ms, args.customers)
    if db.columns("supplier_orders") and int(db.one("SELECT count(*) FROM supplier_orders")) == 0:
        print("  warning: the copy of the supplier's history is empty: run `storefront reconcile` "
              "on the seed shop first, or the books have no supplier side", file=sys.stderr)
    for table in BOOKS_TABLES:
        grow(db, table, copies, offsets, step_ms, args.customers)
    db.run("DROP TABLE scale_seeds;")
    for table, series in NUMBERED.items():
        if db.columns(table) and db.columns("document_counters"):
            # The next document continues the grown series without a gap.
            db.run(
                f"UPDATE document_counters SET last_number = "
                f"(SELECT coalesce(max(number), 0) FROM {table}) WHERE series = '{series}';"
            )
    if db.columns("supplier_history_sync"):
        # The grown copy counts as refreshed and read whole now: the shop's next refresh reads
        # only the new pages of the (seed-sized) upstream, as a three-year-old shop's would.
        now = int(time.time() * 1000)
        db.run(
            "DELETE FROM supplier_history_sync; "
            "INSERT INTO supplier_history_sync (list, refreshed_at_ms, full_pass_at_ms) VALUES "
            f"('orders', {now}, {now}), ('transactions', {now}, {now});"
        )
    if db.columns("shop_identity") and any(c == "time_zone" for c, _ in db.columns("shop_identity")):
        # An owner abroad: every console time goes through the zone conversion.
        db.run("UPDATE shop_identity SET time_zone = 'Europe/Berlin' WHERE time_zone = '';")
    if db.columns("daily_sales"):
        # The app counts the sales per day again at its next start, from the grown purchases.
        db.run("DELETE FROM daily_sales;")
    if db.name == "postgres":
        # Sequences continue after the copies' ids.
        for table in [t for t in TABLES + BOOKS_TABLES if t in offsets]:
            db.run(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}));"
            )
    db.run("ANALYZE;")
    total = db.one("SELECT count(*) FROM purchases")
    print(f"{total} purchases in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
