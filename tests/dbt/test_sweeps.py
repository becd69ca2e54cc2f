"""Sweeps (issue 17): `marts.sweeps` and `marts.sweep_points` on real tool outputs.

One warehouse per module: the Samsung PM1743 and SFD7 studies of the reference dataset (real fio
JSON rebuilt from the published figures) and three real fio 3.33 runs at queue depth 1, 4 and 16
in labelled folders, loaded and built with `dbt run --select +sweeps +sweep_points`.

The fio sweep is checked against an independent Python computation from
`fct_workload_results` (the knee, elasticity, efficiency and best point follow from the measured
values, whatever they are); the studies are checked against the published figures read from
`dbt_project/seeds/published_results.csv` (synth.published.figure), never against numbers
written here.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import yaml

from ingest.__main__ import main as ingest_main
from synth.dataset import ROOT_LABELS
from synth.published import figure
from synth.studies import samsung_pm1743_vsan8_esa, sfd7_vsan60_scaling
from tests.dbt.conftest import DBT_PROJECT

pytestmark = pytest.mark.slow

FIO_TESTBED = "pytest-sweep"
QUEUE_DEPTHS = (1, 4, 16)
SAMSUNG = samsung_pm1743_vsan8_esa.TESTBED
SFD7_HYBRID = "sfd7-vsan60-hybrid"
SFD7_ALLFLASH = "sfd7-vsan60-allflash"


def _fio_sweep(root: Path) -> Path:
    """Real fio output at three queue depths, one labelled folder each."""
    base = root / "fio-sweep"
    (base).mkdir()
    (base / "run.yaml").write_text(yaml.safe_dump({"testbed": FIO_TESTBED, "nodes": 1}))
    for depth in QUEUE_DEPTHS:
        folder = base / f"qd{depth}"
        folder.mkdir()
        subprocess.run(
            [
                "fio",
                "--name=sweep",
                f"--filename={root / 'fio.data'}",
                "--size=4m",
                "--io_size=16m",
                "--rw=randread",
                "--bs=4k",
                "--ioengine=libaio",
                f"--iodepth={depth}",
                "--output-format=json",
                f"--output={folder / 'fio.json'}",
            ],
            check=True,
            capture_output=True,
        )
    (root / "fio.data").unlink()
    return base


def _dbt_run_sweeps(db_path: Path, work: Path) -> None:
    from dbt.cli.main import dbtRunner

    # fct_workload_results: the facts of each point's result (a sibling, not an ancestor)
    args = ["run", "--select", "+sweeps", "+sweep_points", "fct_workload_results", "--quiet"]
    args += ["--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT)]
    args += ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PERF_DUCKDB_PATH", str(db_path))
        patch.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        result = dbtRunner().invoke(args)
    failed = [r.node.name for r in (result.result or []) if str(r.status) != "success"]
    assert result.success, failed


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    work = tmp_path_factory.mktemp("sweeps")
    studies = work / "studies"
    studies.mkdir()
    (studies / "run.yaml").write_text(ROOT_LABELS)
    samsung_pm1743_vsan8_esa.write(studies)
    sfd7_vsan60_scaling.write(studies)
    db_path = work / "warehouse.duckdb"
    assert ingest_main(["load", str(studies), "--db", str(db_path), "--quiet"]) == 0
    assert ingest_main(["load", str(_fio_sweep(work)), "--db", str(db_path), "--quiet"]) == 0
    _dbt_run_sweeps(db_path, work)
    # dbt-duckdb's handle in this process is read-write: same configuration here
    con = duckdb.connect(str(db_path))
    yield con
    con.close()


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list[dict]:
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _one_sweep(con: duckdb.DuckDBPyConnection, where: str, params: list) -> dict:
    rows = _rows(con, f"select * from marts.sweeps where {where}", params)
    assert len(rows) == 1, rows
    return rows[0]


def _points(con: duckdb.DuckDBPyConnection, sweep_id: str) -> list[dict]:
    return _rows(
        con,
        "select * from marts.sweep_points where sweep_id = ? order by point_index",
        [sweep_id],
    )


def _within_printed(measured: float, published: float, half_unit: float) -> bool:
    return abs(measured - published) <= half_unit


# --- real fio runs: the mart against an independent computation -----------------------------


def test_fio_queue_depth_sweep_matches_its_results(warehouse) -> None:
    sweep = _one_sweep(warehouse, "testbed = ?", [FIO_TESTBED])
    assert sweep["axis"] == "outstanding_io_per_vm"
    assert sweep["point_count"] == len(QUEUE_DEPTHS)
    facts = _rows(
        warehouse,
        "select p.point_index, p.axis_value, f.iops, f.avg_latency_ms, f.outstanding_io "
        "from marts.sweep_points p join marts.fct_workload_results f using (result_id) "
        "where p.sweep_id = ? order by p.point_index",
        [sweep["sweep_id"]],
    )
    assert [f["axis_value"] for f in facts] == [float(d) for d in QUEUE_DEPTHS]
    assert [f["outstanding_io"] for f in facts] == list(QUEUE_DEPTHS)
    points = _points(warehouse, sweep["sweep_id"])
    first = facts[0]
    past = [None]
    for point, fact, before in zip(points[1:], facts[1:], facts[:-1], strict=True):
        iops_step = math.log(fact["iops"] / before["iops"])
        latency_step = math.log(fact["avg_latency_ms"] / before["avg_latency_ms"])
        expected = latency_step / iops_step if iops_step > 0 else None
        assert point["latency_elasticity"] == pytest.approx(expected)
        past.append(latency_step > max(iops_step, 0))
        linear = first["iops"] * fact["axis_value"] / first["axis_value"]
        assert point["scaling_efficiency_pct"] == pytest.approx(100 * fact["iops"] / linear)
        assert point["iops_vs_first_pct"] == pytest.approx(
            100 * (fact["iops"] - first["iops"]) / first["iops"]
        )
    assert [p["is_past_knee_segment"] for p in points] == past
    # the knee: the last point before the first step past it
    first_past = next((i for i, flag in enumerate(past) if flag), None)
    knees = [p["point_index"] for p in points if p["is_knee"]]
    assert knees == ([] if first_past is None else [first_past])
    best = max(facts, key=lambda f: f["iops"])
    assert sweep["best_iops_axis_value"] == best["axis_value"]
    assert sweep["best_iops"] == pytest.approx(best["iops"])


# --- Samsung PM1743 (reference dataset) -----------------------------------------------------


def test_samsung_optimal_block_sizes_are_64k_and_128k(warehouse) -> None:
    sweep = _one_sweep(warehouse, "testbed = ? and axis = 'block_size_bytes'", [SAMSUNG])
    assert (sweep["read_pct"], sweep["random_pct"], sweep["point_count"]) == (100, 0, 9)
    # Figure 7: 18.4 GB/s at 64 KB and 18.2 GB/s at 128 KB, both "optimal"; 256 KB falls away
    assert sweep["near_best_throughput_axis_values"] == [65536.0, 131072.0]
    assert sweep["best_throughput_axis_value"] == 65536.0
    assert _within_printed(
        sweep["best_throughput_mb_s"], figure("samsung-fig7-seqread-64k-throughput"), 50
    )


def _samsung_vm_sweep(warehouse, read_pct: int) -> dict:
    return _one_sweep(
        warehouse,
        "testbed = ? and axis = 'vms_per_host' and read_pct = ?",
        [SAMSUNG, read_pct],
    )


def test_samsung_latency_knee_at_15_vms(warehouse) -> None:
    # 'latency significantly increased when the workloads exceeded 15 VMs'
    published = figure("samsung-fig5-latency-knee-vms")
    # 4K random read, 128K sequential 70/30, 4K random write: from 3 to 15 VMs latency grows
    # slower than IOPS, from 15 to 30 faster
    for read_pct in (100, 70, 0):
        sweep = _samsung_vm_sweep(warehouse, read_pct)
        assert sweep["knee_status"] == "inside", read_pct
        assert sweep["knee_vm_count"] == published, read_pct


def test_samsung_best_iops_at_640_outstanding_io_per_host(warehouse) -> None:
    sweep = _samsung_vm_sweep(warehouse, 100)
    assert sweep["best_iops_vm_count"] == 30
    assert sweep["best_iops_outstanding_io_per_host"] == figure("samsung-vms-optimal-oio-per-host")
    assert _within_printed(sweep["best_iops"], figure("samsung-fig5-read-30vm-iops"), 5000)


def test_samsung_iops_within_1ms_is_interpolated_between_15_and_30_vms(warehouse) -> None:
    sweep = _samsung_vm_sweep(warehouse, 100)
    points = {p["vm_count"]: p for p in _points(warehouse, sweep["sweep_id"])}
    under, over = points[15], points[30]
    assert under["avg_latency_ms"] <= 1 < over["avg_latency_ms"]
    expected = under["iops"] + (1 - under["avg_latency_ms"]) * (over["iops"] - under["iops"]) / (
        over["avg_latency_ms"] - under["avg_latency_ms"]
    )
    assert sweep["iops_within_1ms"] == pytest.approx(expected)
    assert sweep["iops_within_1ms_is_interpolated"] is True
    # 2 ms and 5 ms are above every point: the best measured point, not interpolated
    assert sweep["iops_within_2ms"] == pytest.approx(sweep["best_iops"])
    assert sweep["iops_within_2ms_is_interpolated"] is False


# --- SFD7 (reference dataset) ---------------------------------------------------------------


def test_sfd7_hybrid_scales_nearly_linearly_from_8_to_64_hosts(warehouse) -> None:
    sweep = _one_sweep(
        warehouse, "testbed = ? and axis = 'nodes' and read_pct = 100", [SFD7_HYBRID]
    )
    points = {p["nodes"]: p for p in _points(warehouse, sweep["sweep_id"])}
    assert sorted(points) == [4, 8, 16, 32, 64]
    assert _within_printed(points[64]["iops"], figure("sfd7-hybrid-64h-r100-iops"), 50_000)
    # efficiency of 64 hosts against linear from the first point (4 hosts)
    linear = points[4]["iops"] * 64 / 4
    assert sweep["last_scaling_efficiency_pct"] == pytest.approx(100 * points[64]["iops"] / linear)
    assert points[64]["scaling_efficiency_pct"] == sweep["last_scaling_efficiency_pct"]


def test_sfd7_hybrid_mixed_is_a_quarter_of_read_at_64_hosts(warehouse) -> None:
    sweep = _one_sweep(warehouse, "testbed = ? and axis = 'read_pct' and nodes = 64", [SFD7_HYBRID])
    mixed = next(p for p in _points(warehouse, sweep["sweep_id"]) if p["read_pct"] == 70)
    ratio = mixed["iops_share_of_best_pct"] / 100
    # '~1/4 the 100% read performance' (992K / 3.8M)
    assert _within_printed(ratio, figure("sfd7-hybrid-64h-r70-vs-r100-ratio"), 0.05)


def _working_set_drop_pct(warehouse, disk_groups: int) -> float:
    sweep = _one_sweep(
        warehouse,
        "testbed = ? and axis = 'working_set' and disk_groups = ?",
        [SFD7_ALLFLASH, disk_groups],
    )
    points = {p["axis_value"]: p for p in _points(warehouse, sweep["sweep_id"])}
    assert points[100.0]["point_index"] == 1
    return points[400.0]["iops_vs_first_pct"]


def test_sfd7_working_set_drops_per_disk_group_count(warehouse) -> None:
    one = _working_set_drop_pct(warehouse, 1)
    two = _working_set_drop_pct(warehouse, 2)
    # '~15% drop' and '~22% drop' from 100 to 400 GB, and 'the dual disk group did 7% worse'
    assert _within_printed(one, figure("sfd7-af-1dg-ws400-vs-ws100-iops-delta"), 1)
    assert _within_printed(two, figure("sfd7-af-2dg-ws400-vs-ws100-iops-delta"), 1)
    assert _within_printed(two - one, figure("sfd7-af-2dg-vs-1dg-drop-difference"), 0.5)
