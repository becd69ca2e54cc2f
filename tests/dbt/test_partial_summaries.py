"""Issue 15 at mart level: a HCIBench `-res.txt` cut mid-line gives a partial result.

A summary-only case of the fixture tree is copied twice into a tmp folder: whole, and cut
inside its `R_LATENCY` line (as if copied while HCIBench was still writing it). Both are
loaded with the `load` command into a fresh warehouse and `dbt build` runs over it. The
figures asserted are read from the fixture file itself, never from the marts.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main as ingest_main
from tests.dbt.conftest import HCIBENCH_RESULTS, _dbt_build

pytestmark = pytest.mark.slow

SUMMARY = (
    HCIBENCH_RESULTS
    / "hcib28"
    / "group1-fio-1vmdk-100ws-64k-0rdpct-0randompct-1threads-1700300000-res.txt"
)
MIB = 1.048576  # MB per MiB


def _cut_inside(text: str, key: str) -> tuple[str, int, float]:
    """The text cut after the first 4 characters of the value of line `key` (no line end),
    the number of that line, and the IOPS printed before it."""
    lines = text.splitlines(keepends=True)
    line_no = next(i for i, line in enumerate(lines, 1) if line.startswith(key))
    head, _, value = lines[line_no - 1].partition("=")
    cut = "".join(lines[: line_no - 1]) + head + "= " + value.strip()[:4]
    iops = re.search(r"^IOPS\s*=\s*([\d.]+)", text, re.MULTILINE)
    assert iops, text
    return cut, line_no, float(iops.group(1))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, float]:
    work = tmp_path_factory.mktemp("partial_summaries")
    text = SUMMARY.read_text()
    cut, line_no, iops = _cut_inside(text, "R_LATENCY")
    for folder, content in (("whole", text), ("cut", cut)):
        (work / "results" / folder).mkdir(parents=True)
        (work / "results" / folder / SUMMARY.name).write_text(content)
    db_path = work / "x.duckdb"
    assert ingest_main(["load", str(work / "results"), "--db", str(db_path)]) == 0
    success, failures = _dbt_build(db_path, work)
    assert success, failures
    return db_path, line_no, iops


def _mart_rows(db_path: Path) -> dict[str, tuple]:
    # dbt-duckdb keeps its own read-write handle open in this process (see conftest)
    con = duckdb.connect(str(db_path))
    try:
        rows = con.execute(
            "select result_key, source_tool, iops, read_latency_ms, vms_excluded, is_partial,"
            " partial_reason from marts.fct_workload_results order by result_key"
        ).fetchall()
    finally:
        con.close()
    return {("cut" if "/cut/" in r[0] else "whole"): r[1:] for r in rows}


def test_cut_summary_gives_a_partial_result(warehouse) -> None:
    db_path, line_no, iops = warehouse
    rows = _mart_rows(db_path)
    assert set(rows) == {"cut", "whole"}, rows
    tool, got_iops, read_ms, vms_excluded, is_partial, reason = rows["cut"]
    assert tool == "hcibench_summary"
    # the IOPS line came before the cut: kept as printed (5127.49)
    assert got_iops == pytest.approx(iops, rel=1e-12)
    assert line_no == 7
    # R_LATENCY was cut inside its value: not stored, never a cut-off prefix
    assert read_ms is None
    assert (vms_excluded, is_partial) == (0, True)
    assert reason == (
        f"HCIBench -res.txt cut short at line {line_no}: values after the cut are missing"
    )


def test_whole_summary_stays_whole(warehouse) -> None:
    db_path, _, iops = warehouse
    tool, got_iops, read_ms, vms_excluded, is_partial, reason = _mart_rows(db_path)["whole"]
    assert (tool, vms_excluded, is_partial, reason) == ("hcibench_summary", 0, False, None)
    assert got_iops == pytest.approx(iops, rel=1e-12)
    # 0rdpct case: R_LATENCY = 0.0000 ms printed, stored as 0
    assert read_ms == 0.0


def test_cut_fixture_helper_cuts_mid_value() -> None:
    cut, line_no, _ = _cut_inside(SUMMARY.read_text(), "R_LATENCY")
    assert not cut.endswith("\n")
    assert cut.splitlines()[-1] == "R_LATENCY\t= 0.00"
    assert line_no == len(cut.splitlines())
