"""`ingest accept` on the warehouse built from the real files (the reference dataset and the
samples): verdicts, reasons, run validity, exit codes and the JSON document.

Expected values are the studies' printed figures, worked out by hand: Micron's vSAN 6.7 SATA RA
Figure 10 (4 KiB random read, cache working set: baseline 486,099 IOPS, balanced 412,792 IOPS on
4 nodes) and Figure 14 (70 % read, capacity working set: balanced 5.23 ms); the ReadyNode
targets of vSAN Essentials Table 9.1 (AF-6 50,000, AF-8 80,000 IOPS per node).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from ingest.__main__ import main
from ingest.accept_rules import NO_CHANGE_POINT_MART
from tests.app.conftest import REPO, query

MICRON = "{testbed: micron-sata-vsan67, working_set: cache, read_pct: 100, block_size_bytes: 4096"
BASELINE_IOPS = 486_099.0  # Figure 10, baseline
BALANCED_IOPS = 412_792.0  # Figure 10, balanced
FIG10_BASELINE = "micron67-fig10-baseline-cache-r100-iops"


def _accept(
    db: Path, spec_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any] | None, str]:
    spec = tmp_path / "acceptance.yaml"
    spec.write_text(spec_text, encoding="utf-8")
    rc = main(["accept", "--spec", str(spec), "--db", str(db), "--format", "json", *extra])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if out.strip() else None), err


def _checks(document: dict[str, Any], rule: int = 0) -> dict[str, dict[str, Any]]:
    """The checks of a rule's single result, by requirement."""
    (result,) = document["rules"][rule]["results"]
    return {c["requirement"]: c for c in result["checks"]}


def test_a_passing_rule_exits_0_with_the_measured_values(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        f"- name: baseline read\n  where: {MICRON}, profile: baseline}}\n  require:\n"
        "    min_iops: 400000\n"
        f"    within_pct_of_published: {{figure: {FIG10_BASELINE}, pct: 5}}\n"
        "    min_iops_per_node_of_readynode_profile: AF-6\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 0
    assert doc is not None and doc["status"] == "pass"
    checks = _checks(doc)
    assert checks["min_iops"]["measured"] == pytest.approx(BASELINE_IOPS, abs=0.5)
    assert checks["min_iops"]["unit"] == "IOPS"
    assert checks["within_pct_of_published"]["measured"] == pytest.approx(0.0, abs=1e-6)
    readynode = checks["min_iops_per_node_of_readynode_profile"]
    assert readynode["measured"] == pytest.approx(BASELINE_IOPS / 4, abs=0.5)
    assert readynode["limit"] == 50_000.0
    assert {c["status"] for c in checks.values()} == {"pass"}


def test_a_failing_rule_exits_1_and_says_the_value_the_limit_and_the_unit(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        "- where: {testbed: micron-sata-vsan67, profile: balanced, working_set: capacity,"
        " read_pct: 70}\n  require: {max_avg_latency_ms: 5}\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None and doc["rules"][0]["status"] == "fail"
    check = _checks(doc)["max_avg_latency_ms"]
    assert check["status"] == "fail"
    assert check["measured"] == pytest.approx(5.23, abs=0.005)  # Figure 14
    assert (check["limit"], check["unit"]) == (5.0, "ms")
    assert check["reason"] == "mean latency 5.23 ms > 5 ms"


def test_a_result_off_the_published_figure_fails_by_its_difference(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        f"- where: {MICRON}, profile: balanced}}\n  require:\n"
        f"    within_pct_of_published: {{figure: {FIG10_BASELINE}, pct: 5}}\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    check = _checks(doc)["within_pct_of_published"]
    assert check["status"] == "fail"
    off = 100 * (BALANCED_IOPS - BASELINE_IOPS) / BASELINE_IOPS  # -15.08 %
    assert check["measured"] == pytest.approx(off, abs=1e-3)
    assert "-15.08 %" in check["reason"] and FIG10_BASELINE in check["reason"]


def test_a_readynode_target_above_the_measured_iops_per_node_fails(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # balanced, 70 % read, capacity working set: 212,784 IOPS / 4 nodes = 53,196 < AF-8's 80,000
    spec = (
        "- where: {testbed: micron-sata-vsan67, profile: balanced, working_set: capacity,"
        " read_pct: 70}\n  require: {min_iops_per_node_of_readynode_profile: AF-8}\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    check = _checks(doc)["min_iops_per_node_of_readynode_profile"]
    assert check["status"] == "fail"
    assert check["measured"] == pytest.approx(53_196.0, abs=0.5)
    assert (check["limit"], check["unit"]) == (80_000.0, "IOPS/node")


def test_a_rule_that_matches_nothing_fails_and_says_so(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        f"- where: {MICRON}, profile: baseline}}\n  require: {{min_iops: 1}}\n"
        "- where: {testbed: no-such-cluster}\n  require: {min_iops: 1}\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    assert [r["status"] for r in doc["rules"]] == ["pass", "fail"]
    assert doc["rules"][1]["results"] == []
    assert doc["rules"][1]["reason"] == "fail: the rule matches no result"


@pytest.mark.parametrize(
    ("spec", "line", "words"),
    [
        (
            "- where: {testbed: micron-sata-vsan67}\n  require: {min_iops: 1}\n"
            "- where:\n    testbed: micron-sata-vsan67\n    read_percent: 70\n"
            "  require: {min_iops: 1}\n",
            5,
            "unknown where key 'read_percent'; known keys: ",
        ),
        (
            "- where: {testbed: micron-sata-vsan67}\n  require:\n"
            "    min_iops_per_node_of_readynode_profile: AF-7\n",
            3,
            "unknown ReadyNode profile 'AF-7' (known: AF-4, AF-6, AF-8, HY-2",
        ),
        (
            "- where: {testbed: micron-sata-vsan67}\n  require:\n"
            "    within_pct_of_published: {figure: micron67-fig99, pct: 5}\n",
            3,
            "no published figure 'micron67-fig99'",
        ),
    ],
)
def test_what_the_warehouse_lacks_is_a_spec_error_with_its_line(
    warehouse: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    line: int,
    words: str,
) -> None:
    rc, doc, err = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 2
    assert doc is None
    err = " ".join(err.split())
    assert f"acceptance.yaml:{line}: {words}" in err
    if "known keys" in words:
        # the result columns and the labels alike
        assert "read_pct" in err and "data_origin" in err


def test_a_host_saturated_run_is_excluded_and_says_by_which_rule(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the one threshold, dbt var host_cpu_saturated_pct, on the busiest host's mean CPU
    threshold = yaml.safe_load((REPO / "dbt_project" / "dbt_project.yml").read_text())["vars"][
        "host_cpu_saturated_pct"
    ]
    saturated = {
        r[0]
        for r in query(
            warehouse,
            "select result_id from marts.fct_result_host_cpu_samples"
            " where testbed = 'samsung-pm1743-vsan8-esa'"
            " group by result_id, host_name having avg(cpu_util_pct) >= ?",
            [threshold],
        )
    }
    assert saturated  # the ESA study's esxtop captures have hosts at 99 %
    # history's run validity reads the same definition: the same results are left out there,
    # but for those an earlier rule (partial, not steady) already names
    exclusions = query(
        warehouse,
        "select distinct result_id, validity_exclusion from marts.history_points"
        " where testbed = 'samsung-pm1743-vsan8-esa' and validity_exclusion is not null",
    )
    earlier = {r for r, rule in exclusions if rule != "host_cpu_saturated"}
    in_history = {r for r, rule in exclusions if rule == "host_cpu_saturated"}
    assert in_history and in_history == saturated - earlier
    spec = "- where: {testbed: samsung-pm1743-vsan8-esa}\n  require: {min_iops: 0}\n"
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    results = doc["rules"][0]["results"]
    flagged = {
        r["result_id"]
        for r in results
        if "host_cpu_saturated" in {e["validity_rule"] for e in r["excluded_by"]}
    }
    assert flagged == saturated
    for r in results:
        if r["result_id"] in saturated:
            # min_iops 0 passes, but the run does not count
            assert r["status"] == "fail" and r["checks"][0]["status"] == "pass"


def test_a_run_that_never_reached_steady_state_is_excluded(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ((result_id,),) = query(
        warehouse,
        "select min(result_id) from marts.fct_result_steady_state"
        " where steady_state_criterion = 'not_met'",
    )
    spec = f"- where: {{result_id: {result_id}}}\n  require: {{steady_state: true}}\n"
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    (result,) = doc["rules"][0]["results"]
    assert result["excluded_by"] == [
        {"validity_rule": "steady_state", "reason": "never reached steady state (not_met)"}
    ]
    assert result["checks"][0]["status"] == "fail"


def test_no_regression_passes_where_no_change_point_was_found(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the reference dataset repeats no configuration: marts.change_points is there, empty
    spec = f"- where: {MICRON}, profile: baseline}}\n  require: {{no_regression: true}}\n"
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 0
    assert _checks(doc)["no_regression"]["status"] == "pass"


def test_no_regression_is_inconclusive_without_a_change_point_mart(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a warehouse built before the change-point mart existed
    older = tmp_path / "older.duckdb"
    shutil.copyfile(warehouse, older)
    with duckdb.connect(str(older)) as con:
        con.execute("drop table if exists marts.change_points")
        con.execute("drop view if exists marts.change_points")
    spec = f"- where: {MICRON}, profile: baseline}}\n  require: {{no_regression: true}}\n"
    rc, doc, _ = _accept(older, spec, tmp_path, capsys)
    assert rc == 1  # not every rule passed
    assert doc is not None and doc["rules"][0]["status"] == "inconclusive"
    check = _checks(doc)["no_regression"]
    assert (check["status"], check["reason"]) == ("inconclusive", NO_CHANGE_POINT_MART)


@pytest.fixture(scope="module")
def private_copy(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The main file alone (nothing published beside it: the reader reads it), to write in."""
    path = tmp_path_factory.mktemp("accept_copy") / "warehouse.duckdb"
    shutil.copyfile(warehouse, path)
    return path


@pytest.mark.parametrize(
    ("measure", "change_pct", "review_state", "status"),
    [
        ("iops", -8.0, "open", "fail"),
        ("iops", -8.0, "confirmed", "fail"),
        ("iops", -8.0, "dismissed", "pass"),
        ("iops", 8.0, "open", "pass"),
        ("avg_latency_ms", 8.0, "confirmed", "fail"),
    ],
)
def test_no_regression_fails_on_an_open_or_confirmed_change_for_the_worse(
    private_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    measure: str,
    change_pct: float,
    review_state: str,
    status: str,
) -> None:
    # marts.change_points comes from the change-point builder: a row of its contract on a
    # real Samsung result (series labels, measure, the first result after the change).
    with duckdb.connect(str(private_copy)) as con:
        ((result_id,),) = con.execute(
            "select min(result_id) from marts.fct_workload_results"
            " where testbed = 'samsung-pm1743-vsan8-esa' and started_at is not null"
        ).fetchall()
        con.execute(
            "create or replace table marts.change_points as select testbed, profile, read_pct,"
            " block_size_bytes, vm_count, ? as measure, result_id, started_at,"
            " ? as change_pct, ? as review_state"
            " from marts.fct_workload_results where result_id = ?",
            [measure, change_pct, review_state, result_id],
        )
    spec = f"- where: {{result_id: {result_id}}}\n  require: {{no_regression: true}}\n"
    _, doc, _ = _accept(private_copy, spec, tmp_path, capsys)
    assert doc is not None
    check = _checks(doc)["no_regression"]
    assert check["status"] == status
    if status == "fail":
        assert (
            f"{measure} {change_pct:+.1f} % from result {result_id} ({review_state})"
            in (check["reason"])
        )


def test_the_json_document_has_the_documented_fields(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = (
        f"- name: read\n  where: {MICRON}, profile: [baseline, density]}}\n"
        "  require: {min_iops: 1, steady_state: true}\n"
    )
    rc, doc, _ = _accept(warehouse, spec, tmp_path, capsys)
    assert rc == 0
    assert doc is not None
    assert set(doc) == {"spec", "warehouse", "status", "rules"}
    (rule,) = doc["rules"]
    assert set(rule) == {"name", "line", "where", "status", "reason", "results"}
    assert rule["where"]["profile"] == ["baseline", "density"]
    assert rule["line"] == 1 and rule["reason"] == "2 pass of 2"
    assert sorted(r["profile"] for r in rule["results"]) == ["baseline", "density"]
    for result in rule["results"]:
        assert set(result) == {
            "result_id", "testbed", "profile", "started_at", "status", "excluded_by", "checks",
        }  # fmt: skip
        for check in result["checks"]:
            assert set(check) == {"requirement", "status", "measured", "limit", "unit", "reason"}


def test_the_table_shows_each_rule_and_the_overall_verdict(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "acceptance.yaml"
    spec.write_text(
        "- name: nothing\n  where: {testbed: no-such-cluster}\n  require: {min_iops: 1}\n"
    )
    rc = main(["accept", "--spec", str(spec), "--db", str(warehouse)])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 1
    assert "nothing: fail (fail: the rule matches no result)" in out
    assert out.endswith("overall: fail")


@pytest.mark.slow
def test_record_appends_the_verdicts_that_acceptance_results_shows(
    private_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # dbt creates acceptance.verdicts (on-run-start) and the view over it
    env = {k: v for k, v in os.environ.items() if k != "PERF_WAREHOUSE"}
    env["PERF_DUCKDB_PATH"] = str(private_copy)
    target = ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]
    models = ["--select", "stg_acceptance__verdicts", "acceptance_results"]
    subprocess.run(
        [sys.executable, "-m", "ingest", "build", *models, *target],
        env=env,
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    spec = (
        f"- where: {MICRON}, profile: baseline}}\n  require: {{min_iops: 1}}\n"
        "- where: {testbed: no-such-cluster}\n  require: {min_iops: 1}\n"
    )
    spec_path = tmp_path / "acceptance.yaml"  # what _accept writes, as recorded
    for _ in range(2):  # the view shows the latest run only
        rc, _, err = _accept(private_copy, spec, tmp_path, capsys, "--record")
        assert rc == 1
        assert "recorded 2 verdict rows in acceptance.verdicts" in err
    with duckdb.connect(str(private_copy), read_only=True) as con:
        rows = con.execute(
            "select rule_line, rule_status, result_status, requirement, measured, reason"
            " from marts.acceptance_results where spec = ? order by rule_line",
            [str(spec_path)],
        ).fetchall()
        (runs,) = con.execute(
            "select count(distinct run_at) from acceptance.verdicts where spec = ?",
            [str(spec_path)],
        ).fetchone()
    assert runs == 2
    assert rows[0][:4] == (1, "pass", "pass", "min_iops")
    assert rows[0][4] == pytest.approx(BASELINE_IOPS, abs=0.5)
    assert rows[1] == (3, "fail", None, None, None, "fail: the rule matches no result")


def test_the_readme_and_example_specs_run_as_documented(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Acceptance in CI", 1)[1]
    readme_spec = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    rc, doc, _ = _accept(warehouse, readme_spec, tmp_path, capsys)
    assert (rc, doc is not None and doc["status"]) == (0, "pass")
    # the example: two rules pass; the 70/30 rule fails on Figure 14's balanced 5.23 ms
    example = (REPO / "docs" / "examples" / "acceptance.yaml").read_text(encoding="utf-8")
    rc, doc, _ = _accept(warehouse, example, tmp_path, capsys)
    assert rc == 1
    assert doc is not None
    assert [r["status"] for r in doc["rules"]] == ["pass", "pass", "fail"]
