"""Storage-policy costs, back-end I/O, ReadyNode targets and capacity marts on a small warehouse.

Loaded: the Micron RA density capacity snapshots and the Samsung RAID-1/RAID-5 tests (written by
`synth` from the published figures), real fio randrw outputs from Debian's fio under OSA RAID-5
labels on 4 hosts (valid) and 3 hosts (RAID-5 needs 4), and the Samsung RAID-5 snapshot again
without a capture time. Then `dbt build` of these marts and what they read.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import yaml

from ingest.__main__ import main as ingest_main
from synth.studies import micron_vsan67_sata_ra as micron
from synth.studies import samsung_pm1743_vsan8_esa as samsung
from tests.dbt.conftest import _dbt_build
from tests.ingest.test_fio_variants import needs_fio, run_fio
from tests.synth._study_checks import seed_by_id

MARTS = [
    "+storage_policy_costs",
    "+dim_storage_policies",
    "+result_backend_io",
    "+per_node_iops_vs_targets",
    "+capacity_primary_vs_redundancy",
    "+latest_dedupe_ratios",
    "+dim_testbeds",
]
OSA_LABELS = {"testbed": "pytest-osa", "architecture": "OSA", "vsan_version": "6.7"}
SEED = {**seed_by_id(micron.STUDY_ID), **seed_by_id(samsung.STUDY_ID)}


@dataclass(frozen=True)
class FioRun:
    read_iops: float
    write_iops: float


@dataclass(frozen=True)
class Built:
    path: Path
    fio_runs: dict[int, FioRun]  # nodes -> what fio printed

    def rows(self, sql: str) -> list[dict]:
        con = duckdb.connect(str(self.path))
        try:
            cursor = con.execute(sql)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        finally:
            con.close()


def _copy_folders(study_root: Path, folders: list[str], target: Path) -> None:
    """The `folders` of a written study, with every `run.yaml` above them (labels inherited)."""
    for folder in folders:
        shutil.copytree(study_root / folder, target / folder)
        parent = Path(folder).parent
        while True:
            labels = study_root / parent / "run.yaml"
            if labels.exists():
                (target / parent).mkdir(parents=True, exist_ok=True)
                shutil.copy(labels, target / parent / "run.yaml")
            if parent == Path("."):
                break
            parent = parent.parent


def _fio_result(folder: Path, nodes: int) -> FioRun:
    folder.mkdir(parents=True)
    out = run_fio(folder, "--rw=randrw", "--rwmixread=70", "--bs=4k", "--output-format=json")
    (folder / "fio.json").write_bytes(out)
    labels = {**OSA_LABELS, "nodes": nodes, "ftm": "RAID-5", "ftt": 1}
    (folder / "run.yaml").write_text(yaml.safe_dump(labels), encoding="utf-8")
    (folder / "data").unlink()
    job = json.loads(out)["jobs"][0]
    return FioRun(job["read"]["iops"], job["write"]["iops"])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    work = tmp_path_factory.mktemp("policies")
    written, data = work / "written", work / "data"
    micron.write(written)
    samsung.write(written)
    _copy_folders(
        written / micron.STUDY_ID,
        ["density-capacity/capacity", "density-cache/capacity"],
        data / micron.STUDY_ID,
    )
    _copy_folders(written / samsung.STUDY_ID, ["raid/raid1", "raid/raid5"], data / samsung.STUDY_ID)
    undated = data / "undated"
    undated.mkdir()
    shutil.copy(
        written / samsung.STUDY_ID / "raid" / "raid5" / "capacity" / "space_usage.json", undated
    )
    labels = {"testbed": samsung.TESTBED, "nodes": 3, "architecture": "ESA", "ftm": "RAID-5"}
    (undated / "run.yaml").write_text(yaml.safe_dump({**labels, "ftt": 1}), encoding="utf-8")
    fio_runs = {nodes: _fio_result(data / f"osa-{nodes}-hosts", nodes) for nodes in (4, 3)}
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(data), "--db", str(db), "--quiet"]) == 0
    # only the data tests whose every parent is built (the relationships of other marts wait
    # for a full build)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DBT_INDIRECT_SELECTION", "cautious")
        success, failures = _dbt_build(db, work, MARTS)
    assert success, failures
    return Built(db, fio_runs)


def _value(figure_id: str) -> float:
    return float(SEED[figure_id]["value"])


def test_policy_costs_give_table7_and_the_overhead_figures(built: Built) -> None:
    costs = {
        (r["architecture"], r["ftm"], r["ftt"], r["cluster_nodes_min"]): r
        for r in built.rows("select * from marts.storage_policy_costs")
    }
    table7 = {
        ("RAID-1", 1): "micron67-table7-raid-1-ftt1-capacity-multiplier",
        ("RAID-1", 2): "micron67-table7-raid-1-ftt2-capacity-multiplier",
        ("RAID-5", 1): "micron67-table7-raid-5-ftt1-capacity-multiplier",
        ("RAID-6", 2): "micron67-table7-raid-6-ftt2-capacity-multiplier",
    }
    for (ftm, ftt), figure_id in table7.items():
        assert costs[("OSA", ftm, ftt, None)]["capacity_multiplier"] == _value(figure_id)
    density = costs[("OSA", "RAID-5", 1, None)]
    assert round(density["capacity_overhead_pct"]) == _value(
        "micron67-text-density-capacity-overhead"
    )
    esa_2p1, esa_4p1 = costs[("ESA", "RAID-5", 1, 3)], costs[("ESA", "RAID-5", 1, 6)]
    assert (esa_2p1["layout"], esa_2p1["cluster_nodes_max"]) == ("2+1", 5)
    assert esa_2p1["capacity_overhead_pct"] == _value("samsung-text-raid5-capacity-overhead")
    assert esa_2p1["replica_capacity_delta_pct"] == _value("samsung-exec-raid5-replica-footprint")
    assert (esa_4p1["layout"], esa_4p1["capacity_multiplier"]) == ("4+1", 1.25)
    # read-modify-write: 2 reads + 2 writes (RAID-5), 3 + 3 (RAID-6); ESA none
    assert density["backend_ios_per_frontend_write"] == 4
    assert costs[("OSA", "RAID-6", 2, None)]["backend_reads_per_frontend_write"] == 3
    assert esa_2p1["backend_reads_per_frontend_write"] == 0


def test_dim_lists_the_policies_valid_on_each_cluster_and_those_in_use(built: Built) -> None:
    rows = built.rows("select * from marts.dim_storage_policies")
    samsung_policies = {
        (r["ftm"], r["ftt"], r["layout"], r["is_used_by_results"])
        for r in rows
        if r["testbed"] == samsung.TESTBED
    }
    # 3 ESA hosts: no RAID-6 (6 hosts), no RAID-1 FTT=2 (5 hosts); RAID-5 is 2+1
    assert samsung_policies == {
        ("RAID-1", 0, "1 copy", False),
        ("RAID-1", 1, "mirror x2", True),
        ("RAID-5", 1, "2+1", True),
    }
    invalid = [r for r in rows if r["testbed"] == "pytest-osa" and r["nodes"] == 3]
    raid5 = next(r for r in invalid if r["ftm"] == "RAID-5")
    assert raid5["is_used_by_results"] and raid5["is_valid_on_cluster"] is False
    assert raid5["invalid_reason"] == "RAID-5 FTT=1 needs 4 hosts, the cluster has 3"


@needs_fio
def test_backend_io_multiplies_front_end_writes_by_the_policy(built: Built) -> None:
    rows = {
        r["nodes"]: r
        for r in built.rows("select * from marts.result_backend_io where testbed = 'pytest-osa'")
    }
    fio4 = built.fio_runs[4]
    assert rows[4]["frontend_write_iops"] == pytest.approx(fio4.write_iops)
    # OSA RAID-5 read-modify-write: 2 writes and 2 reads per front-end write
    assert rows[4]["backend_write_iops"] == pytest.approx(2 * fio4.write_iops)
    assert rows[4]["backend_read_iops"] == pytest.approx(fio4.read_iops + 2 * fio4.write_iops)
    assert rows[3]["backend_write_iops"] is None
    assert rows[3]["backend_io_null_reason"] == "RAID-5 FTT=1 needs 4 hosts, the cluster has 3"


@needs_fio
def test_iops_per_node_against_the_af6_target(built: Built) -> None:
    (row,) = built.rows(
        "select * from marts.per_node_iops_vs_targets"
        " where testbed = 'pytest-osa' and nodes = 4 and readynode_profile = 'AF-6'"
    )
    fio4 = built.fio_runs[4]
    per_node = (fio4.read_iops + fio4.write_iops) / 4
    assert row["target_iops_per_node"] == 50_000
    assert row["iops_per_node_vs_target_pct"] == pytest.approx(100 * (per_node - 50_000) / 50_000)


def test_capacity_marts_give_figures_10_18_and_19(built: Built) -> None:
    by_test = {
        (r["testbed"], r["profile"], r["working_set"]): r
        for r in built.rows(
            "select * from marts.capacity_primary_vs_redundancy where captured_at is not null"
        )
    }
    capacity = by_test[(micron.TESTBED, "density", "capacity")]
    cache = by_test[(micron.TESTBED, "density", "cache")]
    assert round(capacity["vdisk_share_of_used_pct"], 6) == _value(
        "micron67-fig18-capacity-vdisk-share"
    )
    assert round(cache["vdisk_share_of_used_pct"], 6) == _value("micron67-fig19-cache-vdisk-share")
    raid1 = by_test[(samsung.TESTBED, "raid1", None)]
    raid5 = by_test[(samsung.TESTBED, "raid5", None)]
    assert raid1["primary_bytes"] == raid5["primary_bytes"] == 5_280_000_000_000
    assert raid1["redundancy_bytes"] == 5_280_000_000_000
    assert raid5["redundancy_bytes"] == 2_640_000_000_000
    assert (raid1["redundancy_pct_of_primary"], raid5["redundancy_pct_of_primary"]) == (100, 50)
    assert raid5["policy_redundancy_pct_of_primary"] == 50
    # the vdisk share is one row of the object-type mart
    (vdisk,) = built.rows(
        "select * from marts.fct_capacity_by_object_type"
        f" where capacity_observation_id = {capacity['capacity_observation_id']}"
        " and object_type = 'vdisk'"
    )
    assert vdisk["share_of_used_pct"] == capacity["vdisk_share_of_used_pct"]


def test_dedupe_ratio_and_esa_multiplier_follow_the_cluster(built: Built) -> None:
    ratios = built.rows("select * from marts.dedupe_ratios")
    micron_capacity = next(
        r for r in ratios if r["testbed"] == micron.TESTBED and r["working_set"] == "capacity"
    )
    assert round(micron_capacity["dedupe_compression_ratio"], 2) == _value(
        "micron67-fig16-capacity-ratio"
    )
    assert micron_capacity["capacity_multiplier"] == 1.33
    esa_raid5 = [r for r in ratios if r["testbed"] == samsung.TESTBED and r["ftm"] == "RAID-5"]
    assert {r["capacity_multiplier"] for r in esa_raid5} == {1.5}  # 3 hosts: 2+1


def test_an_undated_observation_is_never_the_latest(built: Built) -> None:
    undated = built.rows(
        "select capacity_observation_id from marts.dedupe_ratios where captured_at is null"
    )
    assert len(undated) == 1
    latest = {
        r["capacity_observation_id"] for r in built.rows("select * from marts.latest_dedupe_ratios")
    }
    assert undated[0]["capacity_observation_id"] not in latest
    assert len(latest) == 4  # the two Micron and the two Samsung dated observations
