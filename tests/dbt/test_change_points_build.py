"""marts.change_points and marts.history_points on a run history in a real format, built by
`python -m ingest build` (a plain `dbt build`: the marts are dbt Python models).

The history is synth.history's: one real fio 3.33 JSON report (`generated-locally`) copied 24
times, re-dated two runs a day every three days, its IOPS and bandwidth scaled by seeded 3 %
noise, by 0.92 from run 14 on (the "upgrade": its folder's run.yaml says vsan_version 8.0u3
where the runs before say 8.0u2, an event label of the series), and by 0.7 for run 6 (the
outlier). What is expected comes from the factors synth wrote, not from
the code under test."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest

from ingest.__main__ import main as ingest_main
from synth.history import HistoryRun, HistorySpec, write_fio_history, write_hcibench_history
from synth.studies import lenovo_sr650_vsan65_blog
from tests.conftest import SAMPLES

pytestmark = pytest.mark.slow

FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"
SPEC = HistorySpec()


class History:
    def __init__(self, db: Path, runs: list[HistoryRun]):
        self.db = db
        self.runs = runs

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with duckdb.connect(str(self.db), read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    def result_of_run(self) -> dict[str, int]:
        """result_id -> the history's run index, through the file each result was loaded from."""
        rows = self.query(
            "select r.result_id, s.source_name from marts.fct_workload_results r"
            " join staging.stg_ingest__source_files s"
            " on s.source_file_id = r.label_source_file_id"
        )
        index = {run.path.name: run.index for run in self.runs}
        return {result_id: index[name] for result_id, name in rows}


def loaded_and_built(work: Path, runs: list[HistoryRun]) -> History:
    """`work/runs` loaded into `work/warehouse.duckdb` and built: the marts and what they
    read, with the tests of those models alone."""
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(work / "runs"), "--db", str(db), "--quiet"]) == 0
    build = ["build", "--db", str(db), "--select", "+change_points", "fct_workload_results"]
    build += ["--indirect-selection", "cautious"]
    build += ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    assert ingest_main(build) == 0
    return History(db, runs)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    work = tmp_path_factory.mktemp("history")
    runs = write_fio_history(FIO_OUTPUT, work / "runs", SPEC)
    return loaded_and_built(work, runs)


def test_the_history_is_one_series_in_run_order(history: History):
    runs = history.result_of_run()
    assert sorted(runs.values()) == list(range(SPEC.runs))
    rows = history.query(
        "select series_key, result_id, series_position from marts.history_points"
        " where measure = 'iops'"
    )
    assert len({key for key, _, _ in rows}) == 1
    assert {runs[result_id]: position for _, result_id, position in rows} == {
        i: i for i in range(SPEC.runs)
    }


def test_the_upgrade_is_an_event_on_the_series_not_a_new_series(history: History):
    runs = history.result_of_run()
    rows = history.query(
        "select result_id, series_labels_json, event_labels_json, event_change"
        " from marts.history_points where measure = 'iops'"
    )
    assert all("vsan_version" not in labels for _, labels, _, _ in rows)
    versions = {runs[r]: json.loads(events)["vsan_version"] for r, _, events, _ in rows}
    assert versions == {
        i: SPEC.upgrade_to if i >= SPEC.change_at else SPEC.upgrade_from for i in range(SPEC.runs)
    }
    events = {runs[r]: change for r, _, _, change in rows if change is not None}
    assert events == {SPEC.change_at: f"vsan_version: {SPEC.upgrade_from} -> {SPEC.upgrade_to}"}


def test_the_outlier_run_is_guarded_and_said_so(history: History):
    runs = history.result_of_run()
    excluded = {
        runs[result_id]: exclusion
        for result_id, exclusion in history.query(
            "select result_id, exclusion from marts.history_points"
            " where measure = 'iops' and exclusion is not null"
        )
    }
    assert excluded == {SPEC.outlier_at: "outlier_gesd"}


def test_the_iops_change_is_at_the_first_run_after_the_upgrade(history: History):
    runs = history.result_of_run()
    rows = history.query(
        "select measure, result_id, previous_result_id, change_pct, runs_before, runs_after,"
        " is_regression, review_state, detector, started_at from marts.change_points"
    )
    by_measure = {row[0]: row[1:] for row in rows}
    # the change point says which event came right before it
    assert history.query("select distinct event_change from marts.change_points") == [
        (f"vsan_version: {SPEC.upgrade_from} -> {SPEC.upgrade_to}",)
    ]
    # IOPS and MB/s scale together; the latencies were left as they were
    assert sorted(by_measure) == ["iops", "throughput_mb_s"]
    result_id, previous, change_pct, before, after, worse, review, detector, started = by_measure[
        "iops"
    ]
    assert runs[result_id] == SPEC.change_at
    assert runs[previous] == SPEC.change_at - 1
    factors = np.array([run.factor for run in history.runs])
    kept_before = [i for i in range(SPEC.change_at) if i != SPEC.outlier_at]
    expected = (factors[SPEC.change_at :].mean() / factors[kept_before].mean() - 1) * 100
    assert change_pct == pytest.approx(expected, rel=1e-4)
    assert (before, after) == (len(kept_before), SPEC.runs - SPEC.change_at)
    assert worse is True
    assert review == "open"
    assert detector == "otava.e_divisive_means"
    # fio's report is written at the end: the run started its runtime earlier
    ended = history.runs[SPEC.change_at].ended_at
    assert started < ended
    assert (ended - started).total_seconds() < 10


@pytest.fixture(scope="module")
def hcibench_history(tmp_path_factory: pytest.TempPathFactory) -> History:
    """The same history from an HCIBench 2.5 fio test case of the reference dataset (the
    Lenovo study's first: 20 worker VMs, 300 s in 30 s status dumps, so its interval series
    can reach steady state; the trimmed fixture cases have three dumps and never do): each run
    a case folder named by its start, with its recomputed -res.txt."""
    work = tmp_path_factory.mktemp("hcibench_history")
    lenovo_sr650_vsan65_blog.write(work / "reference")
    (template,) = (work / "reference").rglob("run1-default/*-res.txt")
    runs = write_hcibench_history(template, work / "runs", SPEC)
    return loaded_and_built(work, runs)


def test_an_hcibench_history_is_one_series_with_its_change_after_the_upgrade(
    hcibench_history: History,
):
    runs = hcibench_history.runs

    def index(at: dt.datetime) -> int:
        """The run an HCIBench result is: the case whose start (the epoch in its name) it
        has, to the fraction of a second its worker VMs' fio reports add (runs are hours
        apart)."""
        (run,) = [r for r in runs if abs((at - r.ended_at).total_seconds()) < 60]
        return run.index

    points = hcibench_history.query(
        "select series_key, started_at, exclusion from marts.history_points"
        " where measure = 'iops' order by series_position"
    )
    assert len({key for key, _, _ in points}) == 1
    assert [index(at) for _, at, _ in points] == list(range(SPEC.runs))
    assert {index(at) for _, at, exclusion in points if exclusion} == {SPEC.outlier_at}
    ((started_at, change_pct, event),) = hcibench_history.query(
        "select started_at, change_pct, event_change from marts.change_points"
        " where measure = 'iops'"
    )
    assert index(started_at) == SPEC.change_at
    assert event == f"vsan_version: {SPEC.upgrade_from} -> {SPEC.upgrade_to}"
    factors = np.array([run.factor for run in hcibench_history.runs])
    kept_before = [i for i in range(SPEC.change_at) if i != SPEC.outlier_at]
    expected = (factors[SPEC.change_at :].mean() / factors[kept_before].mean() - 1) * 100
    # the summary's IOPS carry HCIBench's two decimals: the factors hold to that
    assert change_pct == pytest.approx(expected, abs=0.01)


def test_the_detector_settings_are_the_dbt_vars(history: History, tmp_path: Path):
    """Built again with other vars (a copy: the other tests read the fixture's), both marts
    say the settings they ran with."""
    db = tmp_path / "warehouse.duckdb"  # the file's name is its catalog's: keep it
    shutil.copyfile(history.db, db)
    build = ["build", "--db", str(db), "--target-path", str(tmp_path / "target")]
    build += ["--log-path", str(tmp_path / "logs"), "--select", "history_points"]
    build += ["change_points", "--vars", "{history_max_pvalue: 0.001, history_window_len: 30}"]
    assert ingest_main(build) == 0
    copy = History(db, history.runs)
    for mart in ("history_points", "change_points"):
        ((params,),) = copy.query(f"select distinct detector_params_json from marts.{mart}")
        assert (json.loads(params)["max_pvalue"], json.loads(params)["window_len"]) == (0.001, 30)
