"""Run validity in `ingest accept` on real partial results. The HCIBench `-res.txt` of the fixture
tree loaded whole and cut inside its R_LATENCY line (test_partial_summaries builds that
warehouse): the cut copy is excluded by the `partial` rule, with the mart's reason; the whole
copy passes the same requirement. The HCIBench 2.8 fio case whose VM 3 never wrote its final
report (test_hcibench_results): excluded by `vms_finished_early`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.__main__ import main as ingest_main
from tests.dbt.conftest import HCIBENCH_RESULTS, _dbt_build
from tests.dbt.test_hcibench_results import FIO_PARTIAL
from tests.dbt.test_partial_summaries import warehouse  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _accept_json(db_path: Path, spec_text: str, work: Path) -> tuple[int, dict]:
    """`ingest accept --format json` in its own process, on a copy of `db_path`: dbt-duckdb
    keeps a read-write handle (and so the file's lock) on the built file in this one."""
    copy = work / "copy.duckdb"
    for suffix in ("", ".wal"):
        if Path(f"{db_path}{suffix}").exists():
            shutil.copyfile(f"{db_path}{suffix}", f"{copy}{suffix}")
    spec = work / "acceptance.yaml"
    spec.write_text(spec_text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    done = subprocess.run(
        [sys.executable, "-m", "ingest", "accept", "--spec", str(spec), "--db", str(copy),
         "--format", "json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def hcibench28(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HCIBench 2.8 fixture folder loaded and built."""
    work = tmp_path_factory.mktemp("accept_hcib28")
    db_path = work / "warehouse.duckdb"
    assert ingest_main(["load", str(HCIBENCH_RESULTS / "hcib28"), "--db", str(db_path)]) == 0
    success, failures = _dbt_build(db_path, work)
    assert success, failures
    return db_path


def test_a_result_whose_vm_never_finished_is_excluded(hcibench28: Path, tmp_path: Path) -> None:
    rc, document = _accept_json(
        hcibench28, "- where: {source_tool: fio}\n  require: {min_iops: 1}\n", tmp_path
    )
    assert rc == 1
    results = document["rules"][0]["results"]
    early = {
        "validity_rule": "vms_finished_early",
        "reason": "1 output(s) never finished: left out",
    }
    # VM 3 of the fio case has no final (eta 0) report: one output left out (its short run
    # also never reached a steady-state window: both rules are named)
    (result,) = [r for r in results if early in r["excluded_by"]]
    assert [e["validity_rule"] for e in result["excluded_by"]] == [
        "steady_state",
        "vms_finished_early",
    ]
    assert result["status"] == "fail" and result["checks"][0]["status"] == "pass"
    assert FIO_PARTIAL.name.startswith("fio-4vmdk")  # the case the mart's test sums by hand


def test_a_partial_result_is_excluded_by_the_partial_rule(
    warehouse: tuple[Path, int, float],  # noqa: F811
    tmp_path: Path,
) -> None:
    built, line_no, iops = warehouse
    rc, document = _accept_json(
        built, "- where: {source_tool: hcibench_summary}\n  require: {min_iops: 1}\n", tmp_path
    )
    assert rc == 1
    (rule,) = document["rules"]
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
