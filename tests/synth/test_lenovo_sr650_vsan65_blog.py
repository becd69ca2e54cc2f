"""Lenovo SR650 blog: four HCIBench fio cases; run 4 vs run 3 gives the four printed deltas."""

from __future__ import annotations

from pathlib import Path

from synth.studies import lenovo_sr650_vsan65_blog as study
from tests.synth._study_checks import fio_cluster, holds, loads_cleanly, pct, seed_rows


def test_deltas_shape_and_load(study_folder: Path, tmp_path: Path) -> None:
    runs = {}
    for case in study_folder.glob("run*/fio-*"):
        if case.is_dir():
            assert len(list(case.glob("*.json"))) == 20
            runs[case.parent.name] = fio_cluster(case)
    assert list(runs) and len(runs) == 4
    metric_key = {"iops_delta_pct": "iops", "throughput_delta_pct": "mb",
                  "latency_delta_pct": "lat", "p95_latency_delta_pct": "p95"}  # fmt: skip
    rows = seed_rows(study.STUDY_ID)
    assert len(rows) == 4
    for row in rows:
        key = metric_key[row["metric"]]
        new, old = runs[row["profile"]][key], runs[row["compared_to"]][key]
        assert holds(pct(new, old), row), (row["figure_id"], pct(new, old))
    # run 1 clearly lowest; runs 2 and 3 within a few percent
    assert runs["run1-default"]["iops"] < 0.5 * runs["run2-dedicated-nic-jumbo"]["iops"]
    assert abs(pct(runs["run3-stripe2"]["iops"], runs["run2-dedicated-nic-jumbo"]["iops"])) < 5
    assert loads_cleanly(study_folder.parent, tmp_path / "w.duckdb")
