"""Micron 6.2-vs-6.5 brief: 20 Vdbench cases whose per-VM files give every printed delta."""

from __future__ import annotations

from pathlib import Path

from synth.studies import micron_vsan62_vs_65_brief as study
from tests.synth._study_checks import (
    case_read_pct,
    holds,
    loads_cleanly,
    pct,
    seed_rows,
    vdbench_cluster,
)


def test_every_delta_is_reproduced_and_loads(study_folder: Path, tmp_path: Path) -> None:
    cells = {}
    for case in study_folder.glob("vsan*-*/vdb-*"):
        if case.is_dir():
            version, working_set = case.parent.name.split("-")
            cells[(version[4] + "." + version[5], working_set, case_read_pct(case))] = (
                vdbench_cluster(case)
            )
    assert len(cells) == 20
    rows = seed_rows(study.STUDY_ID)
    assert len(rows) == 24
    for row in rows:
        key = (row["working_set"], int(row["read_pct"]))
        new, old = cells[("6.5", *key)], cells[("6.2", *key)]
        index = 0 if row["metric"] == "iops_delta_pct" else 1
        assert holds(pct(new[index], old[index]), row), row["figure_id"]
    assert loads_cleanly(study_folder.parent, tmp_path / "w.duckdb")
