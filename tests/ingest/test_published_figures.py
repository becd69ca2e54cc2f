"""A user's own reference figures through `ingest load`: recognised by the header, stored in
raw.published_figures with every column typed, refused whole for a bad row (row, column, what),
figure ids unique within the file and against every other loaded figures file, and a changed
file at the same path replacing its figures (the loader's rule for every format)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main
from ingest.parsers.published_figures import seed_keys
from tests.conftest import REPO

EXAMPLE = REPO / "docs" / "examples" / "own_figures.csv"


def example_rows() -> list[dict[str, str]]:
    with EXAMPLE.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_figures(path: Path, rows: list[dict[str, str]]) -> Path:
    """A figures file with the example's header (the seed's columns) and `rows`."""
    header = list(example_rows()[0])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def stored(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def load(db: Path, *paths: Path) -> int:
    return main(["load", *(str(p) for p in paths), "--db", str(db)])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "wh.duckdb"


def test_the_example_is_stored_typed_and_a_second_load_adds_nothing(db, capsys) -> None:
    assert load(db, EXAMPLE) == 0
    assert "3 reference figures of my_lab_acceptance_2026" in capsys.readouterr().out
    rows = stored(
        db,
        "select row_number, figure_id, testbed, profile, read_pct, block_size_bytes, metric,"
        " value, unit, value_as_printed, qualifier, chart_read, nodes"
        " from raw.published_figures order by row_number",
    )
    expected = [
        (
            i + 2, r["figure_id"], r["testbed"], r["profile"], int(r["read_pct"]),
            int(r["block_size_bytes"]), r["metric"], float(r["value"]), r["unit"],
            r["value_as_printed"], r["qualifier"], r["chart_read"] == "true", None,
        )
        for i, r in enumerate(example_rows())
    ]  # fmt: skip
    assert rows == expected
    assert stored(db, "select format from raw.source_files") == [("published_figures",)]
    assert load(db, EXAMPLE) == 0
    assert "1 already loaded (unchanged)" in capsys.readouterr().out
    assert stored(db, "select count(*) from raw.published_figures") == [(3,)]


def _with(row: int, **cells: str) -> list[dict[str, str]]:
    rows = example_rows()
    rows[row - 2] = {**rows[row - 2], **cells}
    return rows


@pytest.mark.parametrize(
    ("rows", "location", "reason"),
    [
        (_with(3, unit="us"), "row 3, column unit",
         "'us' is not one of IOPS, ms, MB/s, %, pp, x, fraction, TB, count, bytes"),
        (_with(2, value="121K"), "row 2, column value", "'121K' is not a number"),
        (_with(4, read_pct="70.5"), "row 4, column read_pct", "'70.5' is not a whole number"),
        (_with(2, chart_read="yes"), "row 2, column chart_read", "'yes' is not true or false"),
        (_with(3, qualifier=""), "row 3, column qualifier",
         "empty, and every figure must give it"),
        (_with(2, metric="iops_per_watt"), "row 2, column metric", "'iops_per_watt' is not one of"),
        (_with(3, figure_id=example_rows()[0]["figure_id"]), "row 3, column figure_id",
         f"figure id '{example_rows()[0]['figure_id']}' repeats row 2"),
        (_with(2, source_document="micron_vsan67_sata_ra"), "row 2, column source_document",
         "'micron_vsan67_sata_ra' is a reference study of the seed published_results"),
    ],
    ids=["unit", "number", "integer", "boolean", "required", "metric", "repeated_id", "seed_doc"],
)  # fmt: skip
def test_a_bad_row_refuses_the_file_naming_row_column_and_what(
    db, tmp_path, capsys, rows, location, reason
) -> None:
    bad = write_figures(tmp_path / "figures.csv", rows)
    assert load(db, bad) == 1
    out = " ".join(capsys.readouterr().out.split())  # the summary wraps long lines
    assert f"{location}: {reason}" in out, out
    assert stored(db, "select count(*) from raw.published_figures") == [(0,)]
    assert stored(db, "select count(*) from raw.source_files") == [(0,)]


def test_a_missing_column_is_named(db, tmp_path, capsys) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace(",chart_read,", ",", 1)
    bad = tmp_path / "figures.csv"
    bad.write_text(text, encoding="utf-8")
    assert load(db, bad) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "row 1: not the columns of published_results.csv (missing chart_read)" in out


def test_a_seed_figure_id_is_refused(db, tmp_path, capsys) -> None:
    _, seed_ids = seed_keys()
    taken = sorted(seed_ids)[0]
    bad = write_figures(tmp_path / "figures.csv", _with(2, figure_id=taken))
    assert load(db, bad) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"row 2, column figure_id: '{taken}' is a figure id of the seed" in out


def test_an_id_another_loaded_file_holds_is_refused_with_that_file(db, tmp_path, capsys) -> None:
    first = write_figures(tmp_path / "a" / "figures.csv", example_rows())
    assert load(db, first) == 0
    # a second file of the same document: its second row reuses the first file's third id
    rows = [
        {**example_rows()[0], "figure_id": "my-lab-acceptance-t2-r100-iops", "value": "2600"},
        {**example_rows()[2], "value": "1100"},
    ]
    second = write_figures(tmp_path / "b" / "figures.csv", rows)
    capsys.readouterr()
    assert load(db, second) == 1
    out = " ".join(capsys.readouterr().out.split())
    taken = example_rows()[2]["figure_id"]
    assert (
        f"row 3, column figure_id: figure id '{taken}' is already loaded from {first} "
        "(document my_lab_acceptance_2026)"
    ) in out, out
    counted = "select count(*), count(distinct _source_file_id) from raw.published_figures"
    assert stored(db, counted) == [(3, 1)]


def test_two_files_with_one_id_in_one_load_store_the_first_only(db, tmp_path, capsys) -> None:
    a = write_figures(tmp_path / "a.csv", example_rows()[:1])
    b = write_figures(tmp_path / "b.csv", [{**example_rows()[0], "value": "2600"}])
    assert load(db, a, b) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"is already loaded from {a}" in out, out
    assert stored(db, "select value from raw.published_figures") == [(2500.0,)]


def test_a_changed_file_replaces_its_figures(db, tmp_path, capsys) -> None:
    path = write_figures(tmp_path / "figures.csv", example_rows())
    assert load(db, path) == 0
    changed = [{**example_rows()[0], "value": "3000", "value_as_printed": "3K"}]
    write_figures(path, changed)
    assert load(db, path) == 0
    assert "1 loaded" in capsys.readouterr().out
    assert stored(db, "select figure_id, value, value_as_printed from raw.published_figures") == [
        (changed[0]["figure_id"], 3000.0, "3K")
    ]
    assert stored(db, "select count(*) from raw.source_files") == [(1,)]
