"""`python -m ingest accept` in team mode: the same verdicts as on the file it was migrated from,
read from the published snapshot, and `--record` appending to the lake's acceptance.verdicts
(a real PostgreSQL catalog)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lake.file_warehouse import (
    built_file_warehouse,
    file_env,
    file_rows,
    ingest,
    lake_env,
    lake_rows,
    migrate,
    publish_latest,
)
from warehouse import LakeWarehouse

# Every fio sample result: a passing check, and one that fails on the slower ones.
SPEC = "- name: fio\n  where: {source_tool: fio}\n  require: {min_iops: 1, max_avg_latency_ms: 1}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_file_warehouse(tmp_path_factory)


def _verdicts(document: dict) -> list[tuple]:
    return [
        (r["result_id"], r["status"], c["requirement"], c["status"], c["measured"])
        for rule in document["rules"]
        for r in rule["results"]
        for c in r["checks"]
    ]


def test_team_mode_gives_the_file_modes_verdicts_and_records_them(
    built: Path, lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    spec = tmp_path / "acceptance.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    args = ["accept", "--spec", str(spec), "--format", "json"]
    in_file = ingest(args, file_env(built))
    assert in_file.returncode in (0, 1), in_file.stderr
    expected = _verdicts(json.loads(in_file.stdout))
    ids = {r[0] for r in file_rows(built, "select result_id from marts.fct_workload_results"
                                   " where source_tool = 'fio'")}  # fmt: skip
    assert ids and {v[0] for v in expected} == ids

    assert migrate(built, lake_target).returncode == 0
    publish_latest(lake_target)
    in_lake = ingest([*args, "--record"], lake_env(lake_target))
    assert in_lake.returncode == in_file.returncode, in_lake.stderr
    assert _verdicts(json.loads(in_lake.stdout)) == expected
    assert f"recorded {len(expected)} verdict rows" in in_lake.stderr

    recorded = lake_rows(
        lake_target,
        "select result_id, result_status, requirement, check_status, measured"
        " from marts.acceptance_results where spec = '" + str(spec).replace("'", "''") + "'",
    )
    assert sorted(recorded, key=str) == sorted(expected, key=str)
