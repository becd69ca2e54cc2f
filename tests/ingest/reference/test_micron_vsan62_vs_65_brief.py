"""Micron 6.2-vs-6.5 brief: 20 Vdbench cases whose per-VM files give every printed delta."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.__main__ import main as ingest_main
from ingest.reference.studies import micron_vsan62_vs_65_brief as study
from tests.ingest.reference._seed_check import case_read_pct, holds, pct, seed_rows, vdbench_cluster


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("micron6265")
    study.write(root)
    return root / study.STUDY_ID


def test_every_delta_is_reproduced_and_loads(generated: Path, tmp_path: Path) -> None:
    cells = {}
    for case in generated.glob("vsan*-*/vdb-*"):
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
    assert (
        ingest_main(["load", str(generated.parent), "--db", str(tmp_path / "w.duckdb"), "--quiet"])
        == 0
    )


def test_generation_is_deterministic(generated: Path, tmp_path: Path) -> None:
    study.write(tmp_path)
    again = tmp_path / study.STUDY_ID
    files = sorted(p.relative_to(generated) for p in generated.rglob("*") if p.is_file())
    assert all((generated / f).read_bytes() == (again / f).read_bytes() for f in files)
