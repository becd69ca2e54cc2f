"""Run validity in `ingest accept` on a real partial result: the HCIBench `-res.txt` of the fixture
tree loaded whole and cut inside its R_LATENCY line (test_partial_summaries builds that
warehouse). The cut copy is excluded by the `partial` rule, with the mart's reason; the whole copy
passes the same requirement."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dbt.test_partial_summaries import warehouse  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_a_partial_result_is_excluded_by_the_partial_rule(
    warehouse: tuple[Path, int, float],  # noqa: F811
    tmp_path: Path,
) -> None:
    built, line_no, iops = warehouse
    # a copy read in its own process: dbt-duckdb keeps a read-write handle (and so the file's
    # lock) on the built file in this one
    db_path = tmp_path / "warehouse.duckdb"
    for suffix in ("", ".wal"):
        if Path(f"{built}{suffix}").exists():
            shutil.copyfile(f"{built}{suffix}", f"{db_path}{suffix}")
    spec = tmp_path / "acceptance.yaml"
    spec.write_text("- where: {source_tool: hcibench_summary}\n  require: {min_iops: 1}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    done = subprocess.run(
        [sys.executable, "-m", "ingest", "accept", "--spec", str(spec), "--db", str(db_path),
         "--format", "json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout, done.stderr
    (rule,) = json.loads(done.stdout)["rules"]
    by_status = {r["status"]: r for r in rule["results"]}
    assert set(by_status) == {"pass", "fail"}
    cut = by_status["fail"]
    assert cut["excluded_by"] == [
        {
            "validity_rule": "partial",
            "reason": f"HCIBench -res.txt cut short at line {line_no}: values after the cut "
            "are missing",
        }
    ]
    # what it measured before the cut passes the requirement, yet the run does not count
    ((check,),) = [cut["checks"]]
    assert (check["status"], check["measured"]) == ("pass", pytest.approx(iops, rel=1e-12))
    assert by_status["pass"]["excluded_by"] == []
