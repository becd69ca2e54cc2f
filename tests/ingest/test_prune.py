"""`ingest load --prune`: stored files that are gone from a loaded folder or archive are
forgotten (issue 27: they kept their rows forever, e.g. an older reference dataset).

GIVEN a folder of three fio outputs and an archive of two, loaded, and a fourth output loaded
from another folder
WHEN one output is deleted, the archive is rewritten with one member, and the folder and the
archive are loaded again
THEN without --prune every row stays; with --prune the deleted output and the dropped member
are forgotten (their rows gone from every raw table, a `pruned` line each, counted in the
summary), and nothing outside the given PATHs is touched.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main
from ingest.raw_schema import raw_tables
from synth.fio_results import write_benchmark_vms


def _stored(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(p for (p,) in con.execute("select path from raw.source_files").fetchall())


def _orphan_rows(db: Path) -> int:
    """Rows of any raw table whose file is not in raw.source_files."""
    with duckdb.connect(str(db), read_only=True) as con:
        existing = {t for (t,) in con.execute(
            "select table_name from information_schema.tables where table_schema = 'raw'"
        ).fetchall()}  # fmt: skip
        return sum(
            con.execute(
                f"select count(*) from raw.{name} where _source_file_id not in "
                "(select source_file_id from raw.source_files)"
            ).fetchone()[0]
            for name in raw_tables()
            if name in existing
        )


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    runs, other, made = tmp_path / "runs", tmp_path / "other", tmp_path / "made"
    write_benchmark_vms(made, 6, dumps=1)
    outputs = sorted(made.glob("*.json"))
    runs.mkdir()
    other.mkdir()
    for source in outputs[:3]:
        shutil.copy(source, runs / source.name)
    shutil.copy(outputs[3], other / outputs[3].name)
    archive = tmp_path / "vms.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for source in outputs[4:6]:
            tar.add(source, arcname=f"case/{source.name}")
    return runs, other, archive, made


def test_prune_forgets_what_is_gone_and_only_that(layout, tmp_path: Path, capsys) -> None:
    runs, other, archive, made = layout
    db = tmp_path / "wh.duckdb"
    assert main(["load", str(runs), str(other), str(archive), "--db", str(db), "--quiet"]) == 0
    assert len(_stored(db)) == 6
    # WHEN one output is deleted and the archive keeps one member
    gone = sorted(runs.glob("*.json"))[0]
    gone.unlink()
    kept_member = sorted(made.glob("*.json"))[4]
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(kept_member, arcname=f"case/{kept_member.name}")
    capsys.readouterr()
    # THEN a load without --prune keeps every row (the default)
    assert main(["load", str(runs), str(archive), "--db", str(db), "--quiet"]) == 0
    assert len(_stored(db)) == 6
    # AND with --prune the two vanished files are forgotten, nothing else
    capsys.readouterr()
    assert main(["load", str(runs), str(archive), "--db", str(db), "--prune", "--quiet"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    stored = _stored(db)
    assert len(stored) == 4
    assert gone.as_posix() not in stored
    assert not any(p.endswith(sorted(made.glob("*.json"))[5].name) for p in stored)
    assert any(p.startswith(other.as_posix()) for p in stored)  # not a PATH given: untouched
    assert f"pruned runs/{gone.name}: gone from disk" in out
    assert "2 pruned (gone from disk)" in out
    assert _orphan_rows(db) == 0
    # AND a second --prune finds nothing more
    assert main(["load", str(runs), str(archive), "--db", str(db), "--prune", "--quiet"]) == 0
    assert "pruned" not in capsys.readouterr().out
