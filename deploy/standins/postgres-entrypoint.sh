#!/bin/sh
# Entrypoint of the local PostgreSQL stand-in (scripts/container-standins): the settings the
# official image documents, for machines that cannot pull it.
#   POSTGRES_PASSWORD  required (the superuser's password)
#   POSTGRES_USER      superuser name, default postgres
#   POSTGRES_DB        database created on first start, default $POSTGRES_USER
#   PGDATA             data folder (a volume), default /var/lib/postgresql/data
# The cluster is created on the first start with an empty data folder, then left alone.
set -eu

if [ "${1:-postgres}" != postgres ]; then
    exec "$@"
fi
shift

: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set." >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    printf "listen_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
    printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
        pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    echo "PostgreSQL init process complete; ready for start up."
fi

exec postgres "$@"
