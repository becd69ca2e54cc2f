"""Team mode keeps change-point reviews where every dashboard server sees them: a decision
recorded through one store object (one dashboard server) is read at once through another, and
`python -m ingest build` carries it into the lake's marts.change_points.review_state.

The history is synth.history's fio run history (tests/dbt/test_change_points_build.py says how
it is made): its IOPS change, found by the first build, is dismissed, then rebuilt."""

from __future__ import annotations

import pytest

from synth.history import HistorySpec, write_fio_history
from tests.conftest import SAMPLES
from tests.lake.test_lake_build import BUILD_MODELS_ONLY, lake_env, run
from warehouse import ducklake, reviews

pytestmark = pytest.mark.slow

FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"


def _changes(lake_target) -> dict[str, tuple]:
    con = ducklake.connect(lake_target, read_only=True)
    try:
        rows = con.execute(
            "select measure, series_key, result_id, review_state, reviewed_by, review_note"
            " from lake.marts.change_points"
        ).fetchall()
    finally:
        con.close()
    return {row[0]: row[1:] for row in rows}


def test_a_review_reaches_every_server_at_once_and_the_lake_after_a_build(lake_target, tmp_path):
    write_fio_history(FIO_OUTPUT, tmp_path / "runs", HistorySpec())
    env = lake_env(lake_target, tmp_path / "lake-work")
    run(env, "load", str(tmp_path / "runs"), "--quiet")
    run(env, "build", "--select", "+change_points", "fct_workload_results", *BUILD_MODELS_ONLY)
    series_key, result_id, state, _, _ = _changes(lake_target)["iops"]
    assert state == "open"

    one_server = reviews.store_for(lake_target)
    assert isinstance(one_server, reviews.CatalogReviewStore)
    change = reviews.ChangeIdentity(series_key, "iops", result_id)
    one_server.record(reviews.decision(change, "dismissed", "lead", "planned upgrade"))
    (seen,) = reviews.store_for(lake_target).decisions()  # another server's store object
    assert (seen.change, seen.review_state, seen.reviewed_by) == (change, "dismissed", "lead")

    # the rebuild of change_points and what it reads of the reviews
    run(env, "build", "--select", "stg_reviews__change_point_decisions+", *BUILD_MODELS_ONLY)
    after = _changes(lake_target)
    assert after["iops"] == (series_key, result_id, "dismissed", "lead", "planned upgrade")
    assert after["throughput_mb_s"][2] == "open"  # nobody decided on it
