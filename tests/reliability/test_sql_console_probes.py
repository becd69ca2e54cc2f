"""SQL console probes that tests/app/test_sql_console.py does not try yet (that file covers
ATTACH, COPY TO, read_csv/read_parquet/glob, FROM '<file>', INSTALL/LOAD, SET, PRAGMA, DDL,
CTE-wrapped INSERT, two statements, DETACH, empty input, the time and row limits).
Every probe must be refused before or while running, and leave no file behind."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from app.lib.sql_console import QueryRejected, run_query

PROBES = [
    pytest.param("export database '/tmp/console_export'", "'export'", id="export-database"),
    pytest.param("import database '/tmp/console_export'", "'import'", id="import-database"),
    pytest.param("copy marts.t from '/etc/hosts'", "'copy'", id="copy-from"),
    pytest.param("call duckdb_secrets()", "'call'", id="call"),
    pytest.param("use memory", "'use'", id="use"),
    pytest.param("reset enable_external_access", "'reset'", id="reset-setting"),
    pytest.param("checkpoint", "'checkpoint'", id="checkpoint"),
    pytest.param("select * from read_text('/etc/passwd')", "read_text", id="read_text"),
    pytest.param("select * from read_blob('/etc/passwd')", "read_blob", id="read_blob"),
    pytest.param("select * from read_json('/etc/x.json')", "read_json", id="read_json"),
    pytest.param("SELECT * FROM READ_CSV('/etc/passwd')", "read_csv", id="upper-case"),
    pytest.param("select * from query('select 1')", "query", id="query-function"),
    pytest.param(
        "select * from 'https://example.invalid/x.csv'", "FROM '<path>'", id="url-as-table"
    ),
    # Quoted identifiers dodge the name check; external access off still refuses them.
    pytest.param("select * from \"read_csv\"('/etc/passwd')", "refused", id="quoted-function"),
    pytest.param("select getenv('HOME')", "refused", id="getenv"),
    pytest.param("select * from sqlite_scan('/tmp/x.db', 't')", "sqlite_scan", id="sqlite-scan"),
    pytest.param(
        "with x as (select 1) select * from x; attach '/tmp/a.db'", "2 given", id="trailing-attach"
    ),
    pytest.param("select 1 -- harmless\n; set threads = 8", "2 given", id="comment-then-set"),
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("console") / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts; create table marts.t as select 1 as a")
    con.close()
    return path


@pytest.mark.parametrize(("sql", "reason"), PROBES)
def test_probe_is_refused(warehouse: Path, sql: str, reason: str) -> None:
    with pytest.raises(QueryRejected, match="(?i)" + re.escape(reason)):
        run_query(warehouse, sql)
    assert not Path("/tmp/console_export").exists()
    assert not Path("/tmp/a.db").exists()


def test_a_plain_select_still_runs(warehouse: Path) -> None:
    assert run_query(warehouse, "select a from marts.t").frame["a"].to_list() == [1]
