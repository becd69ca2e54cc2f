"""Team mode builds the history marts (dbt Python models) as file mode does: synth.history's
fio run history (tests/dbt/test_change_points_build.py says how it is made) loaded into a
fresh lake and built with `python -m ingest build`, then marts.change_points read from the
lake: the IOPS change at the first run after the upgrade, the outlier guarded."""

from __future__ import annotations

import pytest

from synth.history import HistorySpec, write_fio_history
from tests.conftest import SAMPLES
from tests.lake.test_lake_build import BUILD_MODELS_ONLY, lake_env, run
from warehouse import ducklake

pytestmark = pytest.mark.slow

FIO_OUTPUT = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"


def test_the_lake_gets_the_change_point_of_a_fio_history(lake_target, tmp_path):
    spec = HistorySpec()
    runs = write_fio_history(FIO_OUTPUT, tmp_path / "runs", spec)
    env = lake_env(lake_target, tmp_path / "lake-work")
    run(env, "load", str(tmp_path / "runs"), "--quiet")
    run(env, "build", "--select", "+change_points", "fct_workload_results", *BUILD_MODELS_ONLY)

    con = ducklake.connect(lake_target, read_only=True)
    run_of_file = {r.path.name: r.index for r in runs}
    run_of_result = {
        result_id: run_of_file[name]
        for result_id, name in con.execute(
            "select r.result_id, s.source_name from lake.marts.fct_workload_results r"
            " join lake.staging.stg_ingest__source_files s"
            " on s.source_file_id = r.label_source_file_id"
        ).fetchall()
    }
    changes = con.execute(
        "select measure, result_id, review_state from lake.marts.change_points order by measure"
    ).fetchall()
    assert [(m, run_of_result[r], s) for m, r, s in changes] == [
        ("iops", spec.change_at, "open"),
        ("throughput_mb_s", spec.change_at, "open"),
    ]
    guarded = con.execute(
        "select result_id from lake.marts.history_points"
        " where measure = 'iops' and exclusion = 'outlier_gesd'"
    ).fetchall()
    assert [run_of_result[r] for (r,) in guarded] == [spec.outlier_at]
