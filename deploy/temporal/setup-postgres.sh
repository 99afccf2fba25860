#!/bin/sh
# Temporal's schema on PostgreSQL, as Temporal documents it (temporalio/samples-server compose):
# temporal-sql-tool from temporalio/admin-tools creates the `temporal` and `temporal_visibility`
# databases and applies every versioned schema newer than the stored one. Safe to re-run: an
# existing database is kept, `setup-schema -v 0.0` does not reset a stamped database, and
# `update-schema` applies only what is missing. Used by docker-compose.yml and the Kubernetes Job.
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
PORT="${DB_PORT:-5432}"
SCHEMA="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" "$@"
}

for db in temporal temporal_visibility; do
  if sql --db "$db" create 2>/tmp/create.err; then
    echo "created database $db"
  elif grep -qi "already exists" /tmp/create.err; then
    echo "database $db already exists"
  else
    cat /tmp/create.err >&2
    exit 1
  fi
done
sql --db temporal setup-schema -v 0.0
sql --db temporal update-schema -d "$SCHEMA/temporal/versioned"
sql --db temporal_visibility setup-schema -v 0.0
sql --db temporal_visibility update-schema -d "$SCHEMA/visibility/versioned"
echo "Temporal schema is up to date"
