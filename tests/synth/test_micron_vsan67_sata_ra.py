"""Micron vSAN 6.7 RA: study_folder HCIBench Vdbench cases load cleanly and their per-VM files
add up to every published figure the raw data can express (values read from the seed CSV)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from synth.studies import micron_vsan67_sata_ra as study
from tests.synth._study_checks import (
    case_read_pct,
    holds,
    load_subset,
    pct,
    seed_rows,
    vdbench_cluster,
)

# Not expressible from raw results, by design (docs/reference_studies.md section 1):
# Figure 8 text deltas contradicting the printed latency row; object-type shares (in the
# capacity snapshots, checked below); policy properties and usable-to-raw (computed by the marts).
NOT_FROM_RAW = {
    "micron67-fig8-balanced-cache-r50-lat-vs-prev",
    "micron67-fig8-density-cache-r50-lat-vs-prev",
}
NOT_RESULT_METRICS = {
    "vdisk_share_of_used_pct", "capacity_multiplier", "capacity_overhead_pct",
    "usable_to_raw_ratio",
}  # fmt: skip


@pytest.fixture(scope="module")
def cells(study_folder: Path) -> dict[tuple[str, str, int], tuple[float, float]]:
    out = {}
    for case in study_folder.glob("*-*/vdb-*"):
        if case.is_dir():
            profile, working_set = case.parent.name.split("-")
            out[(profile, working_set, case_read_pct(case))] = vdbench_cluster(case)
    return out


def test_forty_cases_of_sixteen_vms(cells: dict, study_folder: Path) -> None:
    assert len(cells) == 40
    assert {len(list(c.glob("*.txt"))) for c in study_folder.glob("*-*/vdb-*") if c.is_dir()} == {
        16
    }


def test_density_capacity_profile_loads_without_rejections(tmp_path: Path) -> None:
    # one profile folder (5 cases and the capacity observation); every folder is loaded by
    # tests/test_reference_end_to_end.py
    study.write(tmp_path / "data")
    db = tmp_path / "w.duckdb"
    assert load_subset(tmp_path / "data" / study.STUDY_ID, {"density-capacity"}, db) == 0


def _measured(row: dict, cells: dict) -> float | None:
    key = (row["profile"], row["working_set"], int(row["read_pct"] or -1))
    if key not in cells:
        return None
    iops, lat = cells[key]
    order = list(study.PROFILES)
    position = order.index(row["profile"])
    other = row["compared_to"] if row["compared_to"] in order else None
    metric = row["metric"]
    ref = cells.get((other, row["working_set"], key[2])) if other else None
    if metric == "iops":
        return iops
    if metric == "avg_latency_ms":
        return lat
    if metric == "iops_per_node":
        return iops / 4
    if metric == "iops_per_node_vs_target_pct":
        return pct(iops / 4, 50_000)
    if metric == "throughput_mb_s":
        return iops * 4096 / 1e6
    if metric.startswith("iops_") and ref:
        return pct(iops, ref[0])
    if metric.startswith("latency_") and ref:
        return pct(lat, ref[1])
    raise AssertionError(f"unhandled {metric} at position {position}")


def test_every_expressible_result_figure_is_reproduced(cells: dict) -> None:
    rows = [
        r for r in seed_rows(study.STUDY_ID)
        if r["read_pct"] and r["metric"] not in NOT_RESULT_METRICS
    ]  # fmt: skip
    assert len(rows) == 87
    failed = []
    for row in rows:
        measured = _measured(row, cells)
        ok = measured is not None and holds(measured, row)
        if ok == (row["figure_id"] in NOT_FROM_RAW):
            failed.append((row["figure_id"], row["value"], measured))
    assert failed == []


def _space_usage(study_folder: Path, working_set: str) -> dict:
    path = study_folder / f"density-{working_set}" / "capacity" / "space_usage.json"
    return json.loads(path.read_text())


def test_capacity_snapshots_give_the_published_ratios(study_folder: Path) -> None:
    ratios = {
        r["working_set"]: r
        for r in seed_rows(study.STUDY_ID)
        if r["metric"] == "dedupe_compression_ratio" and r["qualifier"] == "exact"
    }
    for working_set in ("cache", "capacity"):
        efficient = _space_usage(study_folder, working_set)["efficientCapacity"]
        ratio = efficient["logicalCapacityUsed"] / efficient["physicalCapacityUsed"]
        assert holds(ratio, ratios[working_set])
    figure16 = {
        r["metric"]: r for r in seed_rows(study.STUDY_ID) if r["table_or_figure"] == "Figure 16"
    }
    efficient = _space_usage(study_folder, "capacity")["efficientCapacity"]
    # vSphere's TB is TiB: 28.58 TB -> 31,424,042,321,838 bytes
    assert efficient["logicalCapacityUsed"] == 31_424_042_321_838
    assert holds(efficient["logicalCapacityUsed"] / 2**40, figure16["capacity_used_before_tb"])
    assert holds(efficient["physicalCapacityUsed"] / 2**40, figure16["capacity_used_after_tb"])


@pytest.mark.parametrize(
    ("working_set", "figure"), [("capacity", "Figure 18"), ("cache", "Figure 19")]
)
def test_object_type_breakdown_gives_the_vdisk_share(
    study_folder: Path, working_set: str, figure: str
) -> None:
    row = next(
        r for r in seed_rows(study.STUDY_ID)
        if r["table_or_figure"] == figure and r["metric"] == "vdisk_share_of_used_pct"
    )  # fmt: skip
    usage = _space_usage(study_folder, working_set)
    spaces = usage["spaceDetail"]["spaceUsageByObjectType"]
    used = {s["objType"]: s["usedB"] for s in spaces}
    # the breakdown is the used-before bytes, split by object type
    assert sum(used.values()) == usage["efficientCapacity"]["logicalCapacityUsed"]
    assert holds(100 * used["vdisk"] / sum(used.values()), row)
    assert all(s["usedB"] == s["primaryCapacityB"] + s["overheadB"] for s in spaces)
    labels = yaml.safe_load(
        (study_folder / f"density-{working_set}" / "capacity" / "run.yaml").read_text()
    )
    assert labels["captured_at"].startswith("2018-06-")


def test_labels_match_the_seed(study_folder: Path) -> None:
    seed = {(r["profile"], r["working_set"]): r for r in seed_rows(study.STUDY_ID) if r["read_pct"]}
    top = yaml.safe_load((study_folder / "run.yaml").read_text())
    assert top["testbed"] == next(iter(seed.values()))["testbed"]
    for (profile, working_set), row in seed.items():
        labels = yaml.safe_load(
            (study_folder / f"{profile}-{working_set}" / "run.yaml").read_text()
        )
        assert labels["ftm"] == row["ftm"] and str(labels["osr_pct"]) == row["osr_pct"]
        assert str(labels["checksum"]).lower() == row["checksum"]
        assert str(labels["dedupe"]).lower() == row["dedupe"]
