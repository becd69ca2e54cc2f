"""`python -m ingest check [--repair]`: a lake's Parquet files against its catalog (issue 27:
files deleted from the data folder made reads fail, and a re-load answered "already loaded").

GIVEN a lake holding 24 fio outputs, loaded 6 per commit (so raw tables hold Parquet files)
WHEN one data file of raw.fio_job_directions is deleted from the data folder
THEN reads of that table fail and a re-load adds nothing (the defect); `ingest check` names the
missing file and its table and says how to repair, with exit 1; `ingest check --repair` drops
the table, forgets the outputs whose rows it held and loads them again, after which `check`
finds nothing missing and every raw table holds what it held before the file was lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.conftest import REPO
from tests.lake.test_lake_load import counts, fio_files, lake_env, load, read

FILES = 24


def check(tgt, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ingest", "check", *args],
        cwd=REPO, env=lake_env(tgt), capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def table_counts(tgt) -> dict[str, int]:
    con = read(tgt)
    try:
        tables = con.execute(
            "select table_name from duckdb_tables() where database_name = 'lake' "
            "and schema_name = 'raw'"
        ).fetchall()
        return {t: con.execute(f"select count(*) from raw.{t}").fetchone()[0] for (t,) in tables}
    finally:
        con.close()


def data_files(tgt, table: str) -> list[str]:
    con = read(tgt)
    try:
        rows = con.execute(
            "select data_file from ducklake_list_files('lake', ?, schema => 'raw')", [table]
        ).fetchall()
        return [path for (path,) in rows]
    finally:
        con.close()


def provenance(tgt) -> list[tuple[str, str, str]]:
    """Each stored output's path, the PATH argument it was loaded under and its path there."""
    con = read(tgt)
    try:
        return con.execute(
            "select path, load_root, path_in_root from raw.source_files order by path"
        ).fetchall()
    finally:
        con.close()


def test_a_lost_data_file_is_found_and_repaired(lake_target, tmp_path: Path) -> None:
    files = fio_files(tmp_path / "fio", FILES)
    rc, out = load(lake_target, files, PERF_INGEST_BATCH_FILES="6")
    assert rc == 0, out
    before = table_counts(lake_target)
    placed = provenance(lake_target)
    assert all(root for _, root, _ in placed)  # every output knows the PATH it was loaded from
    healthy = check(lake_target)
    assert healthy.returncode == 0 and "none is missing" in healthy.stdout
    victim = data_files(lake_target, "fio_job_directions")[1]

    os.remove(victim)

    con = read(lake_target)
    with pytest.raises(duckdb.Error):
        con.execute("select sum(iops) from raw.fio_job_directions").fetchall()
    con.close()
    rc, out = load(lake_target, files)
    assert rc == 0 and counts(out) == (0, FILES, 0)  # the defect: nothing is re-loaded
    found = check(lake_target)
    text = " ".join(found.stdout.split())
    assert found.returncode == 1, found.stdout + found.stderr
    assert f"missing data file of raw.fio_job_directions: {victim}" in text
    assert "Restore them from the backup of the data folder" in text
    assert "ingest check --repair" in text

    repaired = check(lake_target, "--repair")
    text = " ".join(repaired.stdout.split())
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"forgot the {FILES} outputs" in text and f"loaded again: {FILES} of {FILES}" in text
    after = check(lake_target)
    assert after.returncode == 0 and "none is missing" in after.stdout
    assert table_counts(lake_target) == before
    # loaded again under the root it was first loaded from: provenance paths unchanged
    assert provenance(lake_target) == placed
