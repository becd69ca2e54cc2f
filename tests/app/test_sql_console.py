"""The SQL console refuses everything but one read-only SELECT, and enforces its limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import warehouse as wh
from app.lib import sql_console
from app.lib.sql_console import QueryRejected, run_query
from tests.app.conftest import query

PROBES = [
    pytest.param("attach '/tmp/other.duckdb' as other", "starts with 'attach'", id="attach"),
    pytest.param("copy marts.fct_workload_results to '/tmp/out.csv'", "'copy'", id="copy-to"),
    pytest.param("select * from read_csv('/etc/passwd')", "read_csv", id="read_csv"),
    pytest.param("select * from read_parquet('/tmp/*.parquet')", "read_parquet", id="parquet"),
    pytest.param("select * from glob('/etc/*')", "glob", id="glob"),
    pytest.param("select * from '/etc/passwd'", "FROM '<path>'", id="from-string"),
    pytest.param("install httpfs", "'install'", id="install"),
    pytest.param("load httpfs", "'load'", id="load"),
    pytest.param("set enable_external_access = true", "'set'", id="set"),
    pytest.param("pragma version", "'pragma'", id="pragma"),
    pytest.param("create table marts.x as select 1", "'create'", id="create"),
    pytest.param("with a as (select 1) insert into t select * from a", "INSERT", id="cte-insert"),
    pytest.param("select 1; drop table marts.dedupe_ratios", "2 given", id="two-statements"),
    pytest.param("/* select */ detach warehouse", "'detach'", id="comment-hides-keyword"),
    pytest.param("", "empty", id="empty"),
    pytest.param("select from where", "does not parse", id="syntax-error"),
]


@pytest.mark.parametrize(("sql", "reason"), PROBES)
def test_probe_is_refused(warehouse: Path, sql: str, reason: str) -> None:
    with pytest.raises(QueryRejected, match="(?i)" + re.escape(reason)):
        run_query(warehouse, sql)


def test_console_connection_has_external_access_off(warehouse: Path) -> None:
    result = run_query(
        warehouse,
        "select current_setting('enable_external_access') as external, "
        "current_setting('lock_configuration') as locked",
    )
    assert result.frame.to_dicts() == [{"external": False, "locked": True}]


def test_external_access_is_off_even_without_the_text_checks(warehouse: Path) -> None:
    # GIVEN the connection the console opens, WHEN a file function reaches DuckDB directly
    con = sql_console.locked_connection(warehouse)
    try:
        for statement in (
            "select * from read_csv('/etc/passwd')",
            "attach '/tmp/other.duckdb' as other",
            "copy (select 1) to '/tmp/console_probe.csv'",
            "install httpfs",
        ):
            with pytest.raises(Exception, match=r"(?i)permission|disabled"):
                con.execute(statement)
        with pytest.raises(Exception, match="locked"):
            con.execute("set enable_external_access = true")
        with pytest.raises(Exception, match="read-only"):
            con.execute("create table marts.x as select 1")
    finally:
        con.close()
    assert not Path("/tmp/console_probe.csv").exists()


def test_select_and_with_run(warehouse: Path) -> None:
    result = run_query(
        warehouse,
        "-- a comment first\nwith r as (select * from marts.latest_dedupe_ratios) "
        "select round(dedupe_compression_ratio, 2) as ratio, 'copy; attach' as text from r "
        "where testbed = 'micron-sata-vsan67';",
    )
    # The Micron vSAN 6.7 RA: 28.58 TiB before, 3.48 TiB after dedupe and compression
    assert result.frame["ratio"].to_list() == [8.21]
    assert result.frame["text"].to_list() == ["copy; attach"]
    assert not result.truncated


def test_row_limit_truncates(warehouse: Path) -> None:
    result = run_query(warehouse, "select * from range(50)", max_rows=20)
    assert len(result.frame) == 20
    assert result.truncated


def test_time_limit_interrupts_a_long_query(warehouse: Path) -> None:
    with pytest.raises(QueryRejected, match=r"0\.5 s limit"):
        run_query(warehouse, "select count(*) from range(100000000000)", timeout_s=0.5)


def test_csv_download(warehouse: Path) -> None:
    result = run_query(warehouse, "select 1 as a, 'x' as b")
    assert sql_console.to_csv(result.frame) == b"a,b\n1,x\n"


def test_console_runs_while_a_page_query_holds_the_file(warehouse: Path) -> None:
    # GIVEN a page's read-only connection open in the same process (another session's query)
    page = wh.connect(warehouse, read_only=True)
    try:
        # WHEN the console opens its locked-down connection, THEN DuckDB does not refuse it as
        # "same database file with a different configuration", and the page still reads
        result = run_query(warehouse, "select count(*) as n from marts.fct_workload_results")
        results = query(warehouse, "select count(*) from marts.fct_workload_results")[0][0]
        assert result.frame["n"].to_list() == [results]
        ratios = query(warehouse, "select count(*) from marts.dedupe_ratios")[0]
        assert page.execute("select count(*) from marts.dedupe_ratios").fetchone() == ratios
    finally:
        page.close()
