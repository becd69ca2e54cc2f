"""Each loaded file records the `ingest load` PATH argument it was found under (`load_root`) and
its path relative to it (`path_in_root`): the report's provenance appendix prints that path.

GIVEN real tool outputs (../shared/samples) given to `ingest load` as a folder, as a file and
inside an archive
WHEN they are loaded
THEN raw.source_files holds, for each, the argument it lay under and its path within it (a
file or archive argument: from its folder), beside the sha256 of its bytes;
AND a warehouse made before these columns existed gets them on its next load: the files it
held keep NULL there (the report prints their absolute path), new files fill them.
"""

from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import duckdb

from ingest.writer import placed_in_root
from tests.conftest import SAMPLES
from tests.reliability.conftest import run_ingest

FIO_FILE = SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json"
FIO_IN_ARCHIVE = "fioplot__fio-3.16__randread-32-32.json"
VDBENCH_FOLDER = SAMPLES / "vdbench"


def _rows(db: Path) -> dict[str, tuple[str | None, str | None, str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "select path, load_root, path_in_root, sha256 from raw.source_files"
        ).fetchall()
    finally:
        con.close()
    return {path: (root, relative, sha) for path, root, relative, sha in rows}


def _load(db: Path, *paths: Path) -> None:
    done = run_ingest(db, "load", *map(str, paths), "--quiet")
    # exit 1: a sample the parsers reject on purpose is reported, the others are stored
    assert done.returncode in (0, 1), done.stdout + done.stderr


def test_each_file_records_the_argument_it_lay_under_and_its_path_within_it(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "outputs.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(SAMPLES / "fio" / FIO_IN_ARCHIVE, arcname=f"case1/{FIO_IN_ARCHIVE}")
    db = tmp_path / "wh.duckdb"
    _load(db, VDBENCH_FOLDER, FIO_FILE, archive)
    rows = _rows(db)

    # a folder argument: paths within it
    in_folder = {p: r for p, r in rows.items() if p.startswith(f"{VDBENCH_FOLDER}/")}
    assert len(in_folder) >= 5
    for path, (root, relative, _) in in_folder.items():
        assert root == str(VDBENCH_FOLDER)
        assert relative == path.removeprefix(f"{VDBENCH_FOLDER}/")
    # a file argument: its name, and the sha256 of its bytes beside it
    root, relative, sha = rows[str(FIO_FILE)]
    assert (root, relative) == (str(FIO_FILE), FIO_FILE.name)
    assert sha == hashlib.sha256(FIO_FILE.read_bytes()).hexdigest()
    # an archive argument: the member within the archive, from the archive's folder
    member = f"{archive}!/case1/{FIO_IN_ARCHIVE}"
    assert rows[member][:2] == (str(archive), f"outputs.tgz!/case1/{FIO_IN_ARCHIVE}")


def test_a_warehouse_made_before_the_columns_gets_them_and_keeps_null_for_its_files(
    tmp_path: Path,
) -> None:
    db = tmp_path / "wh.duckdb"
    _load(db, FIO_FILE)
    con = duckdb.connect(str(db))
    con.execute("alter table raw.source_files drop column load_root")
    con.execute("alter table raw.source_files drop column path_in_root")
    con.close()

    vdbench = VDBENCH_FOLDER / (
        "TheOtherOtherOperation_vdbconvert__vdbench50401_totals_3RDs_avg_2-60__totals.html"
    )
    _load(db, vdbench)
    rows = _rows(db)
    assert rows[str(FIO_FILE)][:2] == (None, None)
    assert rows[str(vdbench)][:2] == (str(vdbench), vdbench.name)


def test_the_innermost_argument_holding_a_path_is_its_root() -> None:
    roots = ["/data", "/data/run1", "/data/run1.tgz", "/"]
    assert placed_in_root("/data/run1/vm1.json", roots) == ("/data/run1", "vm1.json")
    assert placed_in_root("/data/run10/vm1.json", roots) == ("/data", "run10/vm1.json")
    assert placed_in_root("/data/run1.tgz!/c/vm1.json", roots) == (
        "/data/run1.tgz",
        "run1.tgz!/c/vm1.json",
    )
    assert placed_in_root("/other/x.json", roots) == ("/", "other/x.json")
    assert placed_in_root("/other/x.json", []) == (None, None)
