#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up, lint, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
echo "== ruff"
.venv/bin/ruff check .
echo "== sqlfluff (dbt models)"
(cd dbt_project && ../.venv/bin/sqlfluff lint models tests macros --nocolor)
echo "== pytest"
.venv/bin/python -m pytest "$@"
