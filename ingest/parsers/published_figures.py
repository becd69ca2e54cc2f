r"""A user's own reference figures: a CSV with the columns of the `published_results` seed.

Usage
-----
    # as every parser (ingest.parsers):
    published_figures.parse(data, source_for(path, data)).tables["published_figures"]

Example
-------
From the golden case `published_figures/results__one_figure.csv` (the first row of
`docs/examples/own_figures.csv`; a row shows some of its fields; a long line folds after a
comma with a trailing backslash, as in Python):

    $ cat own_figures.csv
    figure_id,source_document,table_or_figure,testbed,nodes,vsan_version,architecture,\
profile,ftm,ftt,checksum,dedupe,compression,stripe_width,osr_pct,disk_groups,transport,\
working_set,storage,vm_count,read_pct,random_pct,block_size_bytes,outstanding_io,\
outstanding_io_per_vm,working_set_pct,working_set_gb,metric,compared_to,value,unit,\
value_as_printed,qualifier,derivation,chart_read,note
    my-lab-acceptance-t1-baseline-r100-iops,my_lab_acceptance_2026,Table 1,my-lab,,,,\
baseline,,,,,,,,,,,,,100,100,4096,,,,,iops,,2500,IOPS,2.5K,more_than,published,false,\
Acceptance target: at least 2.5K IOPS of 4K random reads.

    published_figures: 1 row
      {"row_number": 2, "figure_id": "my-lab-acceptance-t1-baseline-r100-iops",
       "source_document": "my_lab_acceptance_2026", "testbed": "my-lab", "profile": "baseline",
       "read_pct": 100, "block_size_bytes": 4096, "metric": "iops", "value": 2500.0,
       "unit": "IOPS", "value_as_printed": "2.5K", "qualifier": "more_than", "nodes": null}
    notes: ["1 reference figures of my_lab_acceptance_2026"]

`row_number` is the figure's row in the file (the header is row 1); a bad cell is refused as
`row <n>, column <name>: <what is wrong>`, and the whole file with it.

One home for the rules: the column names, their types, which columns must be filled and the
values a column allows are read from the seed's own properties
(`dbt_project/seeds/_published_results.yml`: `column_types`, `not_null`, `accepted_values`),
so a user's file is held to exactly what the seed's figures are. Two lists there name the
reference studies (`source_document`, `testbed`); a user's file names its own, so they are
not applied, and a document or figure id of the seed is refused (the seed owns them).

Checks that need the warehouse (a figure id another loaded figures file already uses) run in
the write's transaction (`check_stored`, called by the writer): the file is refused whole.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import yaml

from ingest.parsers._common import decode_utf8
from ingest.records import Parsed, ParseError, SourceFile

FORMAT = "published_figures"
PARSER_VERSION = "1"
TABLE = "published_figures"

_SEEDS = Path(__file__).resolve().parents[2] / "dbt_project" / "seeds"
_SEED_CSV = _SEEDS / "published_results.csv"
_SEED_PROPERTIES = _SEEDS / "_published_results.yml"
# The seed's vocabularies that list its own studies, not values every figure must take.
_STUDY_COLUMNS = ("source_document", "testbed")
# Columns a header must hold to be read as a figures file (then every column is checked).
_SIGNATURE = ("figure_id", "source_document", "value_as_printed", "qualifier")

_ARROW_TYPES = {
    "varchar": pa.string(),
    "integer": pa.int64(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
}


@cache
def _seed_properties() -> dict[str, Any]:
    properties = yaml.safe_load(_SEED_PROPERTIES.read_text(encoding="utf-8"))
    (seed,) = [s for s in properties["seeds"] if s["name"] == "published_results"]
    return seed


@cache
def column_types() -> dict[str, str]:
    """Column -> dbt type (varchar, integer, double, boolean), in the seed's order."""
    return dict(_seed_properties()["config"]["column_types"])


@cache
def required_columns() -> frozenset[str]:
    return frozenset(
        c["name"] for c in _seed_properties()["columns"] if "not_null" in c.get("data_tests", [])
    )


@cache
def allowed_values() -> dict[str, tuple[str, ...]]:
    """Column -> the values it accepts (the seed's `accepted_values`, study lists left out)."""
    allowed: dict[str, tuple[str, ...]] = {}
    for column in _seed_properties()["columns"]:
        for test in column.get("data_tests", []):
            if isinstance(test, dict) and "accepted_values" in test:
                allowed[column["name"]] = tuple(test["accepted_values"]["arguments"]["values"])
    return {name: values for name, values in allowed.items() if name not in _STUDY_COLUMNS}


@cache
def seed_keys() -> tuple[frozenset[str], frozenset[str]]:
    """The seed's documents and figure ids (a user's file may reuse neither)."""
    with _SEED_CSV.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return frozenset(r["source_document"] for r in rows), frozenset(r["figure_id"] for r in rows)


def _schema() -> pa.Schema:
    fields = [pa.field("row_number", pa.int64(), nullable=False)]
    fields += [pa.field(name, _ARROW_TYPES[kind]) for name, kind in column_types().items()]
    return pa.schema(fields)


TABLES = {TABLE: _schema()}


def detect(head: bytes, name: str) -> bool:
    first = head.split(b"\n", 1)[0].split(b"\r", 1)[0].decode("utf-8", errors="replace")
    try:
        header = {field.strip() for field in next(csv.reader([first]), [])}
    except csv.Error:  # a NUL byte, an unclosed quote: not a figures header
        return False
    return all(column in header for column in _SIGNATURE)


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = decode_utf8(data, source)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [field.strip() for field in next(reader, [])]
        _check_header(header, source)
        rows = [_typed_row(source, reader.line_num, dict(zip(header, cells, strict=False)), cells)
                for cells in _data_rows(reader)]  # fmt: skip
    except csv.Error as exc:  # a NUL byte, a quote left open to the end of the file
        raise ParseError(source.path, f"row {reader.line_num}", f"not CSV: {exc}") from None
    if not rows:
        raise ParseError(source.path, "row 2", "a header and no figures")
    _check_unique_ids(rows, source)
    documents = sorted({row["source_document"] for row in rows})
    parsed = Parsed()
    parsed.add(TABLE, pa.Table.from_pylist(rows, schema=TABLES[TABLE]))
    parsed.notes.append(f"{len(rows)} reference figures of {', '.join(documents)}")
    return parsed


def _data_rows(reader: Any) -> Iterator[list[str]]:
    for cells in reader:
        if any(cell.strip() for cell in cells):  # a blank line is no figure
            yield cells


def _check_header(header: list[str], source: SourceFile) -> None:
    expected = list(column_types())
    missing = [c for c in expected if c not in header]
    unknown = [c for c in header if c not in expected]
    repeated = sorted({c for c in header if header.count(c) > 1})
    problems = [
        f"{label} {', '.join(columns)}"
        for label, columns in (("missing", missing), ("unknown", unknown), ("repeated", repeated))
        if columns
    ]
    if problems:
        reason = (
            f"not the columns of published_results.csv ({'; '.join(problems)}); "
            "docs/CONTRACT.md lists them"
        )
        raise ParseError(source.path, "row 1", reason)


def _typed_row(source: SourceFile, row: int, cells: dict[str, str], raw: list[str]) -> dict:
    if len(raw) != len(column_types()):
        reason = f"{len(raw)} fields where the header has {len(column_types())}"
        raise ParseError(source.path, f"row {row}", reason)
    typed: dict[str, Any] = {"row_number": row}
    for column, kind in column_types().items():
        try:
            typed[column] = _value(column, kind, cells[column].strip())
        except ValueError as exc:
            raise ParseError(source.path, f"row {row}, column {column}", str(exc)) from None
    _check_seed_keys(typed, source)
    return typed


def _value(column: str, kind: str, text: str) -> Any:
    """The typed value of one cell; ValueError says what is wrong with it."""
    if not text:
        if column in required_columns():
            raise ValueError("empty, and every figure must give it")
        return None
    allowed = allowed_values().get(column)
    if allowed is not None and text not in allowed:
        raise ValueError(f"{text!r} is not one of {', '.join(allowed)}")
    if kind == "integer":
        return _integer(text)
    if kind == "double":
        return _number(text)
    if kind == "boolean":
        return _boolean(text)
    return text


def _integer(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None
    if abs(value) >= 2**63:
        raise ValueError(f"{text!r} is too large")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number (write 121000, not 121K: that goes in "
                         "value_as_printed)") from None  # fmt: skip
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered not in ("true", "false"):
        raise ValueError(f"{text!r} is not true or false")
    return lowered == "true"


def _check_seed_keys(row: dict, source: SourceFile) -> None:
    documents, figure_ids = seed_keys()
    where = f"row {row['row_number']}, column"
    if row["source_document"] in documents:
        reason = (
            f"{row['source_document']!r} is a reference study of the seed published_results; "
            "give your document its own name"
        )
        raise ParseError(source.path, f"{where} source_document", reason)
    if row["figure_id"] in figure_ids:
        reason = f"{row['figure_id']!r} is a figure id of the seed published_results"
        raise ParseError(source.path, f"{where} figure_id", reason)


def _check_unique_ids(rows: list[dict], source: SourceFile) -> None:
    first_row: dict[str, int] = {}
    for row in rows:
        earlier = first_row.setdefault(row["figure_id"], row["row_number"])
        if earlier != row["row_number"]:
            reason = f"figure id {row['figure_id']!r} repeats row {earlier}"
            raise ParseError(source.path, f"row {row['row_number']}, column figure_id", reason)


# A figure id of this file that another stored figures file holds (this file's rows and
# `raw.source_files` row are already inserted, in the same transaction).
_TAKEN_IDS = f"""
select mine.row_number, mine.figure_id, theirs.source_document, files.path
from raw.{TABLE} as mine
inner join raw.{TABLE} as theirs
    on mine.figure_id = theirs.figure_id and mine._source_file_id <> theirs._source_file_id
inner join raw.source_files as files on theirs._source_file_id = files.source_file_id
where mine._source_file_id = ?
order by mine.row_number
limit 1
"""


def check_stored(con: duckdb.DuckDBPyConnection, source_file_id: int, path: str) -> None:
    """Refuse the file (ParseError) when a figure id of it is another stored file's.

    Ids are kept unique across every figures file, not only within one document: the marts
    key a figure by its id alone (published_vs_measured, the RA chart's figure pairs)."""
    taken = con.execute(_TAKEN_IDS, [source_file_id]).fetchone()
    if taken:
        row, figure_id, document, other = taken
        reason = f"figure id {figure_id!r} is already loaded from {other} (document {document})"
        raise ParseError(path, f"row {row}, column figure_id", reason)
