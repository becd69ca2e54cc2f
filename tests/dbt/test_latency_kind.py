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

import pytest

from app.lib import notices
from tests.conftest import SAMPLES
from tests.dbt.conftest import load_and_build, query_built

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
    built = load_and_build(work / "runs", work)
    assert built.load_exit == 0 and built.success, built.failures
    return built.db


def test_each_average_latency_carries_its_kind(built: Path) -> None:
    rows = query_built(
        built, "select testbed, avg_latency_kind, avg_latency_ms from marts.fct_workload_results"
    )
    results = {testbed: (kind, round(ms * 1000, 2)) for testbed, kind, ms in rows}
    outputs = query_built(
        built, "select distinct avg_latency_kind from marts.fct_result_outputs order by 1"
    )
    assert results == {"lab-total": ("total", 112.8), "lab-completion": ("completion", 103.25)}
    assert outputs == [("completion",), ("total",)]


def test_the_dashboard_says_which_latency_is_not_total(built: Path) -> None:
    kinds = [
        kind
        for (kind,) in query_built(
            built,
            "select avg_latency_kind from marts.ra_comparison_points where origin = 'measured'",
        )
    ]
    notice = notices.latency_kind_notice(kinds)
    assert notice is not None
    assert "the average latency of 1 result: fio's completion latency (`clat`" in notice.text
    assert notices.latency_kind_notice(["total", None, "total"]) is None
