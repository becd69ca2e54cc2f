"""The History page on a warehouse of a run history in a real format, and the review decisions
it writes: kept in the review store, shown at once (to another session too), kept across a
rebuild in marts.change_points.review_state, and read by `ingest accept`'s no_regression.

The history is synth.history's (tests/dbt/test_change_points_build.py): one real fio 3.33 JSON
report copied 24 times over weeks, IOPS and bandwidth 8 % lower from run 14 on, run 6 a 30 %
outlier. Loaded, built and published once per session with the README's commands; expected
values are read from the marts with the test's own SQL, never from the page's code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from analysis.change_points import DetectorSettings
from app.lib.views.history import one_series, too_few_runs
from harness.chromium import CHROMIUM, Chromium
from synth.history import HistorySpec, write_fio_history
from tests.app import figures
from tests.app.conftest import _run, query, serve
from tests.conftest import SAMPLES
from warehouse.reviews import FileReviewStore, file_store_path

pytestmark = pytest.mark.slow

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
PAGE = "app_pages/history.py"
FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"
SPEC = HistorySpec()


def _env(db: Path) -> dict[str, str]:
    return {**os.environ, "PERF_DUCKDB_PATH": str(db), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}


def _build(db: Path, work: Path) -> None:
    target = ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    _run([sys.executable, "-m", "ingest", "build", *target, "--quiet"], _env(db))


@pytest.fixture(scope="session")
def history_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("history_app")
    write_fio_history(FIO_OUTPUT, work / "runs", SPEC)
    db = work / "warehouse.duckdb"
    py = sys.executable
    _run([py, "-m", "ingest", "load", str(work / "runs"), "--quiet"], _env(db))
    _build(db, work)
    _run([py, "-m", "ingest", "publish"], _env(db))
    return db


@pytest.fixture
def history_env(history_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(history_warehouse))
    return history_warehouse


def open_history(measure: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    at.run()
    if measure:
        at.selectbox(key="history_measure").set_value(measure).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def traces(at: AppTest) -> dict[str, dict]:
    (spec,) = figures.chart_specs(at)
    return {t["name"]: t for t in spec["data"]}


def _mart_points(db: Path, measure: str) -> dict[str, tuple[float, str | None]]:
    rows = query(
        db,
        "select result_id, value, exclusion from marts.history_points where measure = ?",
        [measure],
    )
    return {rid: (value, exclusion) for rid, value, exclusion in rows}


def _mart_change(db: Path, measure: str) -> dict:
    cols = ["result_id", "mean_before", "mean_after", "mean_before_ci95_low",
            "mean_after_ci95_high", "review_state", "reviewed_by", "review_note"]  # fmt: skip
    (row,) = query(db, f"select {', '.join(cols)} from marts.change_points where measure = ?",
                   [measure])  # fmt: skip
    return dict(zip(cols, row, strict=True))


def test_the_chart_draws_the_marts_points_change_and_bands(history_env: Path) -> None:
    at = open_history("iops")
    drawn = traces(at)
    points = _mart_points(history_env, "iops")
    kept = drawn["runs"]
    assert dict(zip(kept["customdata"], kept["y"], strict=True)) == {
        rid: value for rid, (value, exclusion) in points.items() if exclusion is None
    }
    # the outlier run is drawn apart, its reason in its name and on hover
    excluded = drawn["left out: outlier_gesd"]
    assert dict(zip(excluded["customdata"], excluded["y"], strict=True)) == {
        rid: value for rid, (value, exclusion) in points.items() if exclusion == "outlier_gesd"
    }
    assert excluded["text"] == ["left out: outlier_gesd"]
    change = _mart_change(history_env, "iops")
    assert drawn["change points"]["customdata"] == [change["result_id"]]
    means = [t["y"][0] for t in figures.chart_specs(at)[0]["data"] if t["name"].startswith("mean")]
    assert means == pytest.approx([change["mean_before"], change["mean_after"]])
    bands = [t["y"] for t in figures.chart_specs(at)[0]["data"] if t["name"].startswith("95 %")]
    assert bands[0][0] == pytest.approx(change["mean_before_ci95_low"])
    assert bands[1][2] == pytest.approx(change["mean_after_ci95_high"])
    subtitle = figures.chart_specs(at)[0]["layout"]["title"]["subtitle"]["text"]
    flat = subtitle.replace("<br>", " ")  # the layout wraps long subtitles at spaces
    ((labels_json,),) = query(
        history_env, "select any_value(series_labels_json) from marts.history_points"
    )
    labels = ", ".join(f"{k}={v}" for k, v in sorted(json.loads(labels_json).items()))
    assert flat.startswith(f"{SPEC.labels['testbed']} · {labels} otava.e_divisive_means: ")
    assert f"max_pvalue={DetectorSettings().max_pvalue}" in flat
    # the upgrade (vsan_version 8.0u2 -> 8.0u3) is an event on the series: a marker at the
    # first run after it, with old -> new, and named in the change point's caption
    ((event_result, event_text),) = query(
        history_env,
        "select result_id, event_change from marts.history_points"
        " where measure = 'iops' and event_change is not null",
    )
    assert event_text == f"vsan_version: {SPEC.upgrade_from} -> {SPEC.upgrade_to}"
    assert (drawn["events"]["customdata"], drawn["events"]["text"]) == (
        [event_result],
        [event_text],
    )
    assert event_result == change["result_id"]
    assert f"UTC after {event_text}: " in " ".join(m.value for m in at.markdown)


def test_a_series_shorter_than_the_detector_needs_says_so(history_env: Path) -> None:

    with __import__("duckdb").connect(str(history_env), read_only=True) as con:
        points = con.execute("select * from marts.history_points").pl()
    key = points["series_key"][0]
    series = one_series(points, key, "iops")
    assert too_few_runs(series) is None
    need = DetectorSettings().min_points
    short = series.filter(pl.col("series_position") < need - 1)
    assert f"has {need - 1} run(s)" in too_few_runs(short)
    assert f"at least {need}" in too_few_runs(short)


def _accept(db: Path, tmp_path: Path) -> tuple[int, dict]:
    ((last,),) = query(db, "select max_by(result_id, started_at) from marts.fct_workload_results")
    spec = tmp_path / "acceptance.yaml"
    spec.write_text(f"- where: {{result_id: {last}}}\n  require: {{no_regression: true}}\n")
    cmd = [sys.executable, "-m", "ingest", "accept", "--spec", str(spec), "--format", "json"]
    done = subprocess.run(cmd, env=_env(db), capture_output=True, text=True, timeout=300)
    return done.returncode, json.loads(done.stdout)


def _dismiss(measure: str, note: str) -> AppTest:
    at = open_history(measure)
    at.text_input(key="history_reviewer").input("tester")
    at.text_input(key="history_note_0").input(note)
    at.button(key="history_dismissed_0").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_dismissed_change_is_kept_across_a_rebuild_and_passes_acceptance(
    history_env: Path, tmp_path: Path
) -> None:
    store = FileReviewStore(file_store_path(history_env))
    assert store.decisions() == []
    rc, doc = _accept(history_env, tmp_path)
    assert rc == 1 and doc["rules"][0]["status"] == "fail"  # two open changes for the worse

    at = _dismiss("iops", "known: the upgrade")
    (decided,) = store.decisions()
    change = _mart_change(history_env, "iops")
    assert (decided.change.result_id, decided.review_state) == (change["result_id"], "dismissed")
    assert (decided.reviewed_by, decided.review_note) == ("tester", "known: the upgrade")
    shown = " ".join(m.value for m in at.markdown)
    assert "Review: **dismissed** by tester" in shown and "known: the upgrade" in shown
    assert at.button(key="history_dismissed_0").disabled
    # another session (another user) sees it at once: nothing was rebuilt or published
    assert "Review: **dismissed** by tester" in " ".join(
        m.value for m in open_history("iops").markdown
    )
    assert change["review_state"] == "open"  # the mart itself waits for the next build
    _dismiss("throughput_mb_s", "same upgrade")

    _build(history_env, tmp_path)
    for measure, note in (("iops", "known: the upgrade"), ("throughput_mb_s", "same upgrade")):
        rebuilt = _mart_change(history_env, measure)
        assert (rebuilt["review_state"], rebuilt["reviewed_by"], rebuilt["review_note"]) == (
            "dismissed", "tester", note
        )  # fmt: skip
    # `ingest accept` reads the served version: the rebuilt marts once published
    _run([sys.executable, "-m", "ingest", "publish"], _env(history_env))
    rc, doc = _accept(history_env, tmp_path)
    assert rc == 0, doc
    (result,) = doc["rules"][0]["results"]
    assert [c["status"] for c in result["checks"]] == ["pass"]


def test_the_search_box_narrows_configurations_by_label(history_env: Path) -> None:
    at = open_history()
    (labels_json,) = {
        row[0] for row in query(history_env, "select series_labels_json from marts.history_points")
    }
    labels = json.loads(labels_json)
    at.text_input(key="history_search").input(f"HISTORY-lab read_pct={labels['read_pct']}").run()
    assert at.selectbox(key="history_series").options == [
        "history-lab · " + ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
    ]
    typed = f"HISTORY-lab read_pct={labels['read_pct']}"
    assert at.query_params["search"] in (typed, [typed])
    at.text_input(key="history_search").input("read_pct=999").run()
    assert not at.selectbox and "read_pct=999" in at.info[0].value
    assert at.query_params["search"] in ("read_pct=999", ["read_pct=999"])


def test_a_link_with_a_search_text_opens_with_it(history_env: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    at.query_params["search"] = "read_pct=999"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="history_search").value == "read_pct=999"
    assert "read_pct=999" in at.info[0].value


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no chromium at {CHROMIUM}")
def test_a_review_clicked_in_the_browser_shows_in_a_fresh_browser_view(
    history_warehouse: Path, tmp_path: Path
) -> None:
    """The served app in a real browser: Confirm on the IOPS change, then the page opened
    afresh (another user's view) says confirmed. A copy of the warehouse: a store of its own
    (its mart may hold an earlier test's dismissal; nothing confirms it)."""
    for name in ("warehouse.duckdb", "warehouse.serving.duckdb"):
        shutil.copyfile(history_warehouse.with_name(name), tmp_path / name)
    db = tmp_path / "warehouse.duckdb"
    with Chromium() as browser, serve(db, tmp_path / "streamlit.log") as url:
        view = browser.open(f"{url}/history?measure=iops")
        assert "Review: confirmed" not in view.text, view.text[:2000]
        browser.click(".st-key-history_confirmed_0 button")
        browser.wait_for("document.body.innerText.includes('Review: confirmed')")
        again = browser.open(f"{url}/history?measure=iops")
        assert "Review: confirmed" in again.text
    (kept,) = FileReviewStore(file_store_path(db)).decisions()
    assert (kept.change.measure, kept.review_state) == ("iops", "confirmed")
