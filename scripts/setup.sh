#!/usr/bin/env bash
# Idempotent set-up on a fresh machine: Debian packages (fio for tests that
# generate real fio output, chromium for the browser test, postgresql for the
# team-mode tests), a virtualenv in
# .venv and the pinned Python requirements. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v fio >/dev/null 2>&1 || need_apt+=(fio)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# poppler-utils: the report's tests read its PDF (pdftotext) and save page images (pdftoppm).
command -v pdftotext >/dev/null 2>&1 || need_apt+=(poppler-utils)
# PostgreSQL for team mode's tests (a throw-away cluster per test session, see tests/lake).
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian packages: ${need_apt[*]}"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "setup: warning: missing ${need_apt[*]} and cannot apt-get install them (not root?)" >&2
    fi
fi

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi
# Apache Otava's E-Divisive means (analysis/change_points.py), installed alone: apache-otava
# 0.8 pins numpy 2.2 and scipy < 1.17 (requirements.txt has newer) and pulls in its CLI's
# clients (BigQuery, Slack, PostgreSQL, ...), while the algorithm it is here for needs only
# numpy and scipy. tests/analysis/test_change_points.py imports it and checks its answer.
OTAVA=apache-otava==0.8.0
stamp=.venv/.requirements.sha256
want=$( (cat requirements.txt pyproject.toml; echo "$OTAVA") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: installing requirements.txt"
    .venv/bin/pip install -q --disable-pip-version-check --upgrade pip
    .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
    .venv/bin/pip install -q --disable-pip-version-check --no-deps "$OTAVA"
    # The project itself, editable: `ingest`, `app`, `expectations`, `synth`, `warehouse`
    # import from anywhere (streamlit, dbt hooks, subprocesses) without sys.path patches.
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
    echo "$want" > "$stamp"
fi
# dbt: no anonymous usage statistics, here or anywhere the env is reused.
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
