"""Issue 30 in team mode: a lake build records what it built in the lake, the next build with
nothing new runs no dbt, and one more fio file rebuilds only what its raw tables feed."""

from __future__ import annotations

import shutil

from tests.conftest import SAMPLES
from tests.lake.test_lake_build import finish, lake_env, start
from tests.reliability.conftest import REJECTED_SAMPLES
from warehouse import LakeWarehouse, build_state, ducklake
from warehouse.build import plan_build

HELD_BACK = "fioplot__fio-3.14__randread-1-1.json"
# A full lake build runs every node on one thread (profiles.yml): minutes on a busy host.
BUILD_TIMEOUT_S = 1200


def run(env: dict[str, str], *args: str) -> str:
    return finish(start(env, *args), timeout=BUILD_TIMEOUT_S)


def _plan(lake: LakeWarehouse) -> build_state.BuildPlan:
    """What `ingest build` would do now (its own planning, dbt not started)."""
    return plan_build(lake, full=False)[0]


def test_a_lake_build_after_one_more_file_builds_only_its_tables(lake_target, tmp_path):
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    later.mkdir()
    for path in (SAMPLES / "fio").glob("*.json"):
        if path.name not in REJECTED_SAMPLES:
            shutil.copy(path, (later if path.name == HELD_BACK else first) / path.name)
    env = lake_env(lake_target, tmp_path / "work")
    run(env, "load", str(first), "--quiet")
    assert "full build: no record" in run(env, "build")
    assert "nothing to build" in run(env, "build")

    run(env, "load", str(later), "--quiet")
    planned = _plan(lake_target)
    changed = {t.relation for t in planned.changed}
    assert planned.kind == "changed" and {"raw.fio_runs", "raw.source_files"} <= changed
    out = run(env, "build")
    assert "changed build" in out and "Completed successfully" in out
    assert _plan(lake_target).kind == "nothing"
    # the held-back file's result reached the marts
    con = ducklake.connect(lake_target, read_only=True)
    try:
        (rows,) = con.execute(
            "select count(*) from marts.fct_result_outputs r join raw.source_files f "
            "using (source_file_id) where f.path like ?",
            [f"%{HELD_BACK}"],
        ).fetchone()
    finally:
        con.close()
    assert rows >= 1
