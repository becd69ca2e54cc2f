"""The SQL console enforces its limits (the refused statements are
tests/reliability/test_sql_console_probes.py's).

Queries run in a child process: the tests check that the time, memory, row, byte and cell caps
hold there, that a runaway query's process is really ended, and that analyst SQL still runs."""

from __future__ import annotations

import os
import resource
import threading
import time
from pathlib import Path

import pytest

import warehouse
from tests.app.conftest import query
from tests.conftest import ONE_TABLE, marts_warehouse
from warehouse import console as sql_console
from warehouse import console_pool
from warehouse import file as wh
from warehouse.console import QueryRejected, run_query
from warehouse.console_worker import Outcome, Request

RUNAWAY = "select levenshtein(repeat('a', 150000), repeat('b', 150000)) as d"


@pytest.fixture(scope="module")
def small_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-table warehouse for the limit tests, which need no real marts."""
    return marts_warehouse(tmp_path_factory.mktemp("console_limits") / "w.duckdb", ONE_TABLE)


def _console_children() -> list[int]:
    """Live console_worker processes whose parent is this process (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # ended while we looked
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"warehouse.console_worker" in cmdline:
            found.append(int(entry.name))
    return found


def test_console_connection_has_external_access_off(warehouse: Path) -> None:
    # current_setting() is not on the console's allow-list: read the settings directly
    con = sql_console.locked_connection(warehouse)
    try:
        settings = con.execute(
            "select current_setting('enable_external_access'), "
            "current_setting('lock_configuration'), current_setting('threads')"
        ).fetchone()
    finally:
        con.close()
    assert settings == (False, True, 1)


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
        "where testbed = 'micron-sata-vsan67' and working_set = 'capacity';",
    )
    # The Micron vSAN 6.7 RA: 28.58 TiB before, 3.48 TiB after dedupe and compression
    assert result.frame["ratio"].to_list() == [8.21]
    assert result.frame["text"].to_list() == ["copy; attach"]
    assert not result.truncated


ANALYST_SQL = [
    pytest.param(
        "with ranked as (select testbed, profile, iops, row_number() over "
        "(partition by testbed order by iops desc nulls last, result_id) as rn "
        "from marts.fct_workload_results) "
        "select testbed, profile, iops from ranked where rn = 1 order by testbed",
        id="cte-window",
    ),
    pytest.param(
        "select t.testbed_id, count(*) as results, round(avg(r.avg_latency_ms), 3) as lat, "
        "quantile_cont(r.iops, 0.5) as median_iops, string_agg(distinct r.profile, ',' "
        "order by r.profile) as profiles from marts.dim_testbeds t "
        "join marts.fct_workload_results r using (testbed_id) "
        "group by all having count(*) > 0 order by 1",
        id="join-aggregate",
    ),
    pytest.param(
        "select date_trunc('day', started_at) as day, coalesce(transport, 'n/a') as transport, "
        "sum(iops) filter (where read_pct >= 50) as read_heavy_iops, "
        "case when max(block_size_bytes) > 65536 then 'large' else 'small' end as blocks, "
        "lag(sum(iops)) over (order by date_trunc('day', started_at), "
        "coalesce(transport, 'n/a')) as prev "
        "from warehouse.marts.fct_workload_results where started_at is not null "
        "and profile like '%' and testbed in (select testbed from marts.fct_workload_results) "
        "group by 1, 2 qualify prev is null or prev >= 0 order by 1, 2",
        id="functions-qualify",
    ),
    pytest.param(
        "select count(*) as n, count(distinct suite) as suites "
        "from data_quality.validation_results",
        id="data-quality",
    ),
    pytest.param(
        "select n, n * 2 as twice, list_transform([n, n + 1], x -> x * 10) as l, "
        "strftime(make_date(2024, 1, 1) + to_days(n::int), '%Y-%m-%d') as d "
        "from generate_series(1, 3) g(n) union all select 0, 0, [], null order by n",
        id="generate-series-lambda",
    ),
]


@pytest.mark.parametrize("sql", ANALYST_SQL)
def test_analyst_sql_runs_and_matches_duckdb(warehouse: Path, sql: str) -> None:
    # GIVEN ordinary analyst SQL, THEN the console returns exactly what DuckDB returns
    result = run_query(warehouse, sql)
    expected = query(warehouse, sql)
    assert [tuple(row) for row in result.frame.iter_rows()] == expected
    assert len(expected) > 0
    assert not result.truncated


def test_row_limit_truncates(small_warehouse: Path) -> None:
    result = run_query(small_warehouse, "select * from range(50)", max_rows=20)
    assert result.frame["range"].to_list() == list(range(20))
    assert result.truncated
    assert result.notes == ("Only the first 20 rows are shown (the row limit).",)


def test_byte_limit_truncates_wide_rows(small_warehouse: Path) -> None:
    # GIVEN rows of 10,000 BIGINTs (80 kB each) and a 1 MB cap
    max_bytes = 2**20
    result = run_query(
        small_warehouse, "select range(0, 10000) as r from range(3000)", max_bytes=max_bytes
    )
    rows = len(result.frame)
    # THEN the result stops at the last whole row that fits: in Arrow a row is 10,000 x 8 B of
    # values + 10,000 validity bits = 81,250 B, so 12 rows (975,000 B) fit in 1 MiB, 13 do not
    assert rows == max_bytes // 81_250 == 12
    assert result.frame["r"][0].to_list() == list(range(10000))
    assert result.frame.estimated_size() <= max_bytes < (rows + 1) * 81_250
    assert result.truncated
    assert result.notes == (
        "Only the first 12 rows are shown: the result is larger than the 1 MB limit.",
    )


def test_a_row_larger_than_the_byte_limit_is_not_shown(small_warehouse: Path) -> None:
    # GIVEN one row of 1,000,000 BIGINTs (8 MB) and a 1 MB cap
    result = run_query(small_warehouse, "select range(0, 1000000) as r", max_bytes=2**20)
    assert result.frame.columns == ["r"]
    assert result.frame.height == 0
    assert result.notes == ("No row is shown: the first row alone is larger than the 1 MB limit.",)


def test_long_cells_are_cut(small_warehouse: Path) -> None:
    result = run_query(
        small_warehouse,
        "select repeat('é', 300) as accents, 'short' as s, repeat('ab', 5000)::blob as b",
        max_cell_chars=100,
    )
    row = result.frame.row(0, named=True)
    assert row["accents"] == "é" * 100  # characters, not bytes
    assert row["s"] == "short"
    assert row["b"] == b"ab" * 50
    assert result.notes == ("Text longer than 100 characters was cut in: accents, b.",)


def test_huge_result_is_refused_in_the_child_not_built_here(small_warehouse: Path) -> None:
    # GIVEN the query that built 2.4 GB in the server (300 lists of 1,000,000 BIGINTs)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(QueryRejected, match=r"(?i)memory"):
        run_query(small_warehouse, "select range(0, 1000000) from range(300)", timeout_s=30)
    # THEN this process's peak RSS grew by less than 50 MB (ru_maxrss is in KiB)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024
    # and no console process grew past its address-space cap (+ its libraries, < 1.5 GiB)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1536 * 1024


def test_time_limit_interrupts_a_long_query(small_warehouse: Path) -> None:
    with pytest.raises(QueryRejected, match=r"0\.5 s limit"):
        run_query(small_warehouse, "select count(*) from range(100000000000)", timeout_s=0.5)


def test_runaway_queries_are_killed_and_ordinary_queries_still_answer(
    small_warehouse: Path,
) -> None:
    """Behaviour, not speed (a duration bound failed on a loaded CI machine; how fast the
    console answers is benchmarks/bench_sql_console.py's job)."""
    # GIVEN ten clicks on a query DuckDB cannot interrupt (minutes of levenshtein)
    for _ in range(10):
        with pytest.raises(QueryRejected, match=r"1 s limit and was stopped"):
            run_query(small_warehouse, RUNAWAY, timeout_s=1)
        # THEN its process is gone: only the idle spare workers are left (ten would pile up)
        assert len(_console_children()) <= sql_console.MAX_IDLE
    # AND ordinary queries still answer, every time (a killed worker is never handed out)
    for n in range(3):
        assert run_query(small_warehouse, f"select {n} as n").frame["n"].to_list() == [n]
    sql_console.shutdown()
    assert _console_children() == []


def test_a_worker_is_reused_after_an_answer_and_retired_after_a_failure(
    small_warehouse: Path, tmp_path: Path
) -> None:
    def ask(sql: str, max_rows: int = 10) -> Outcome:
        reader = warehouse.reader_for(small_warehouse)
        request = Request(
            reader.child_settings(), sql, str(tmp_path / "r.arrow"), max_rows, 2**20, 100,
            sql_console.CHILD_MEMORY_BYTES,
        )  # fmt: skip
        return console_pool.run(request, type(reader).__name__, timeout_s=30)

    first = ask("select 1")
    second = ask("select 2")
    # GIVEN an answered query, THEN the same (already started) worker answers the next one
    assert first.ok and second.ok
    assert second.pid == first.pid
    # GIVEN a query that runs out of memory, THEN its worker is not used again
    failed = ask("select range(0, 1000000) from range(300)", max_rows=10_000)
    assert failed.error_kind == "memory"
    assert failed.pid not in _console_children()
    assert ask("select 3").pid != failed.pid
    sql_console.shutdown()


def test_concurrent_runaways_use_at_most_the_slots(small_warehouse: Path) -> None:
    # GIVEN five sessions clicking Run on a runaway query at once
    peak, stop = [0], threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], len(_console_children()))
            time.sleep(0.02)

    errors: list[str] = []

    def click() -> None:
        try:
            run_query(small_warehouse, RUNAWAY, timeout_s=1)
        except QueryRejected as exc:
            errors.append(str(exc))

    watcher = threading.Thread(target=watch)
    watcher.start()
    clicks = [threading.Thread(target=click) for _ in range(5)]
    for thread in clicks:
        thread.start()
    for thread in clicks:
        thread.join(30)
    stop.set()
    watcher.join()
    # THEN every click is stopped or told the console is busy, and no more than MAX_CHILDREN
    # queries (+ the spares) ever ran at once
    assert len(errors) == 5
    assert all(("was stopped" in e) or ("busy" in e) for e in errors)
    assert peak[0] <= sql_console.MAX_CHILDREN + sql_console.MAX_IDLE
    sql_console.shutdown()
    assert _console_children() == []


def test_missing_warehouse_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(wh.WarehouseUnavailable, match=r"No warehouse at .*missing\.duckdb"):
        run_query(tmp_path / "missing.duckdb", "select 1")


def test_duckdb_errors_reach_the_analyst(small_warehouse: Path) -> None:
    with pytest.raises(QueryRejected, match=r"DuckDB refused the query: .*no_such_column"):
        run_query(small_warehouse, "select no_such_column from marts.t")


def test_csv_download(small_warehouse: Path) -> None:
    result = run_query(small_warehouse, "select 1 as a, 'x' as b")
    assert sql_console.to_csv(result.frame) == b"a,b\n1,x\n"


def test_csv_download_of_nested_values(small_warehouse: Path) -> None:
    # CSV has no lists or structs: they are written as JSON text rather than failing the page
    result = run_query(small_warehouse, "select [1, 2] as l, {'k': 'v'} as s, range(3) as r")
    assert sql_console.to_csv(result.frame) == (b'l,s,r\n"[1, 2]","{""k"": ""v""}","[0, 1, 2]"\n')


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
