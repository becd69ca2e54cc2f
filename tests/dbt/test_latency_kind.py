"""Every average latency says which span it measures, up to the dashboard (issue 27: when fio's
total latency was unusable and its completion latency was kept, nothing said so).

GIVEN two copies of a real fio 3.14 JSON output (randread, one job) in two labelled folders:
one as written, one whose `lat_ns` mean is impossible (longer than the job ran, as fio 2.1's
overflow wrote it: the parser keeps it NULL with the reason)
WHEN they are loaded and dbt builds the warehouse
THEN the first result's average latency is fio's total latency (`avg_latency_kind` total,
112.80 us), the second's is its completion latency (`completion`, 103.25 us, not the total),
fct_result_outputs says the same per output, and the dashboard's notice names the one result
whose latency is not total latency.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from app.lib import notices
from ingest.__main__ import main as ingest_main
from tests.conftest import SAMPLES
from tests.dbt.conftest import _dbt_build

pytestmark = pytest.mark.slow

SAMPLE = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("latency_kind")
    for name in ("total", "completion"):
        folder = work / "runs" / name
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(f"testbed: lab-{name}\n", encoding="utf-8")
        shutil.copy(SAMPLE, folder / "out.json")
    edited = json.loads(SAMPLE.read_text(encoding="utf-8"))
    edited["jobs"][0]["read"]["lat_ns"]["mean"] = 1e15  # 11.6 days in a 60 s job
    (work / "runs" / "completion" / "out.json").write_text(json.dumps(edited), encoding="utf-8")
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(work / "runs"), "--db", str(db), "--quiet"]) == 0
    success, failures = _dbt_build(db, work)
    assert success, failures
    return db


def test_each_average_latency_carries_its_kind(built: Path) -> None:
    with duckdb.connect(str(built)) as con:  # as dbt opened it: one configuration per file
        results = dict(
            (testbed, (kind, round(latency_ms * 1000, 2)))
            for testbed, kind, latency_ms in con.execute(
                "select testbed, avg_latency_kind, avg_latency_ms from marts.fct_workload_results"
            ).fetchall()
        )
        outputs = con.execute(
            "select distinct avg_latency_kind from marts.fct_result_outputs order by 1"
        ).fetchall()
    assert results == {"lab-total": ("total", 112.8), "lab-completion": ("completion", 103.25)}
    assert outputs == [("completion",), ("total",)]


def test_the_dashboard_says_which_latency_is_not_total(built: Path) -> None:
    with duckdb.connect(str(built)) as con:
        kinds = [k for (k,) in con.execute(
            "select avg_latency_kind from marts.ra_comparison_points where origin = 'measured'"
        ).fetchall()]  # fmt: skip
    notice = notices.latency_kind_notice(kinds)
    assert notice is not None
    assert "the average latency of 1 result: fio's completion latency (`clat`" in notice.text
    assert notices.latency_kind_notice(["total", None, "total"]) is None
