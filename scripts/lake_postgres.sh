#!/usr/bin/env bash
# A PostgreSQL for team mode on this machine, for trying it out or for a small lab:
#   bash scripts/lake_postgres.sh start [DIR] [PORT]   # initdb (first time) + start; prints the exports
#   bash scripts/lake_postgres.sh stop  [DIR]
# DIR defaults to data/lake-postgres, PORT to 5433; the lake's catalog is the database perf_lake
# and its data files go to DIR/../lake-data. Debian's postgresql is installed by scripts/setup.sh.
# For a shared lab catalog use a managed PostgreSQL with passwords (PGPASSWORD or ~/.pgpass).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:-start}
dir=$(realpath -m "${2:-data/lake-postgres}")
port=${3:-5433}
bin=$(dirname "$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -1)")
[ -x "$bin/pg_ctl" ] || { echo "PostgreSQL not installed: bash scripts/setup.sh" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "$action" in
start)
    if [ ! -f "$dir/PG_VERSION" ]; then
        mkdir -p "$dir"
        [ "$(id -u)" = 0 ] && chown postgres "$dir"
        as_pg "$bin/initdb" -D "$dir" -A trust -U postgres >/dev/null
    fi
    if ! as_pg "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        as_pg "$bin/pg_ctl" -D "$dir" -w -l "$dir/server.log" \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
    fi
    "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
        "select 1 from pg_database where datname = 'perf_lake'" | grep -q 1 ||
        "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "create database perf_lake"
    data=$(dirname "$dir")/lake-data
    mkdir -p "$data"
    echo "export PERF_WAREHOUSE='ducklake:postgres:dbname=perf_lake host=127.0.0.1 port=$port user=postgres'"
    echo "export PERF_LAKE_DATA_PATH='$data'"
    ;;
stop)
    as_pg "$bin/pg_ctl" -D "$dir" -m fast stop
    ;;
*)
    echo "usage: $0 start|stop [DIR] [PORT]" >&2; exit 2
    ;;
esac
