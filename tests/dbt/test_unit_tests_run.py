"""dbt's unit tests test code, so `ingest build` leaves them out (`--exclude-resource-type
unit_test`, warehouse/build.py); here, in the test command, every one of them runs and passes."""

from __future__ import annotations

from tests.dbt.conftest import DBT_PROJECT


def test_every_dbt_unit_test_runs_and_passes(built_warehouse, tmp_path, monkeypatch):
    from dbt.cli.main import dbtRunner

    monkeypatch.setenv("PERF_DUCKDB_PATH", str(built_warehouse.path))
    monkeypatch.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    result = dbtRunner().invoke(
        ["test", "--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT),
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
         "--quiet", "--resource-type", "unit_test"]
    )  # fmt: skip
    ran = [r for r in (result.result or []) if r.node.resource_type == "unit_test"]
    failed = [f"{r.node.name}: {r.status} {r.message}" for r in ran if str(r.status) != "pass"]
    assert result.success and not failed, failed or result.exception
    # the project's unit tests (about 60 in issue 32): a selection that ran none would pass
    assert len(ran) >= 60
