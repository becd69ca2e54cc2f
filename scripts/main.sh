#!/usr/bin/env bash
# The main job on a fresh machine: set up, generate and load the reference
# dataset (the five source studies rebuilt in real tool formats) and the real
# sample outputs, dbt build, validate with great-expectations and publish only
# if every constraint holds, then serve the dashboard.
#   bash scripts/main.sh              # ... and open the dashboard on :8501
#   bash scripts/main.sh --no-serve   # stop after validate+publish (CI, cron);
#                                     # exit 1 when validation failed
# Team mode: the same job into a DuckLake when PERF_WAREHOUSE=ducklake:postgres:... and
# PERF_LAKE_DATA_PATH are set (scripts/lake_postgres.sh starts a local PostgreSQL for it).
set -euo pipefail
cd "$(dirname "$0")/.."
serve=1
[ "${1:-}" = "--no-serve" ] && serve=0

bash scripts/setup.sh
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
export PERF_DUCKDB_PATH=${PERF_DUCKDB_PATH:-$PWD/data/warehouse.duckdb}
SHARED=${PERF_SHARED_DIR:-$(cd .. && pwd)/shared}
mkdir -p "$(dirname "$PERF_DUCKDB_PATH")"
. .venv/bin/activate

# Described by the product itself: no password of any libpq form reaches the log.
echo "== warehouse: $(python -c 'import warehouse; print(warehouse.from_settings().describe())')"
REFERENCE=${PERF_REFERENCE_DIR:-$PWD/data/reference}
# Rewritten when the generator or the published figures changed since it was written (a
# stamp of both), so an existing checkout never keeps loading an older reconstruction; a
# rewritten file replaces its earlier rows at load (same path, new content).
stamp=$(cat dbt_project/seeds/published_results.csv $(find synth -name '*.py' | sort) | sha256sum | cut -d' ' -f1)
stamp_file="$REFERENCE.synth-stamp"  # beside the folder: the loader would skip it inside
if [ ! -f "$REFERENCE/run.yaml" ] || [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]; then
    echo "== reference dataset: the five source studies, reconstructed into $REFERENCE"
    # Only a folder this script wrote (it has a stamp) is cleared first.
    if [ -f "$stamp_file" ]; then rm -rf "$REFERENCE"; fi
    python -m ingest reference "$REFERENCE"
    echo "$stamp" > "$stamp_file"
fi
echo "== ingest: reference dataset ($REFERENCE)"
# --prune: files of an older reconstruction that the new one no longer writes are forgotten.
python -m ingest load "$REFERENCE" --quiet --prune

echo "== ingest: bundled real tool outputs ($SHARED/samples)"
# Some bundled samples are broken on purpose (a fio file holding only error
# text...): they are rejected with a reason and the rest loads, so exit 1 is
# expected here; anything else is a failure.
set +e
# Test fixtures (tests/fixtures) never enter the production warehouse.
python -m ingest load "$SHARED/samples" --quiet --prune
status=$?
set -e
if [ "$status" -gt 1 ]; then echo "ingest failed (exit $status)" >&2; exit "$status"; fi

if [ -f dbt_project/dbt_project.yml ]; then
    echo "== dbt build"
    # Under the writer lock (a concurrent load waits); it does not publish.
    python -m ingest build
fi

echo "== validate (great-expectations) and publish"
# The gate: publishes the dashboard's snapshot only if every constraint holds; otherwise
# exit 1 and the dashboard keeps the last version that passed and says why.
set +e
python -m ingest publish
published=$?
set -e
if [ "$published" -ne 0 ]; then
    echo "WARNING: not published (exit $published): see the report above, the dashboard's Data quality page or \`python -m expectations --failures-only\`" >&2
fi

if [ "$serve" = 1 ] && [ -f app/server.py ]; then
    echo "== dashboard on http://localhost:8501 (Ctrl-C to stop)"
    exec streamlit run app/server.py --server.headless true --browser.gatherUsageStats false
fi
exit "$published"
