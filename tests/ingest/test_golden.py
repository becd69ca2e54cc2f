"""Golden-file parser tests: every parser's inputs, parsed, equal their reviewed records.

Each case is one `tests/ingest/golden/<parser>/<case>.expected.json`, naming its input by a
path relative to the repository (real samples stay in ../shared/samples) and holding what the
parser made of it: whether `detect` accepts it, every table's rows as JSON objects, the notes
and why the file yields no result when it loads without one, or the ParseError's location and
reason. A table longer than ROW_LIMIT rows is kept compact: its row count, a digest of every
column and its first and last rows (golden/README.md says why). Floats compare with a relative
tolerance of 1e-9; everything else exactly. See golden/README.md before regenerating:

    python -m tests.ingest.test_golden --update     # rewrite every case, then review the diff
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import enum
import hashlib
import json
import math
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pytest

from ingest.parsers.hcibench.case_folder import hcibench_case_of
from ingest.records import ParseError
from ingest.registry import HEAD_BYTES, detect_format
from ingest.registry import PARSERS as REGISTERED
from ingest.sources import source_for
from ingest.tables import to_arrow
from tests.conftest import FIXTURES, REPO, SAMPLES

GOLDEN = Path(__file__).parent / "golden"
REL_TOLERANCE = 1e-9
# A table with more rows than this is written compact (see `compact`); the largest full table
# is a fio json+ latency histogram (1,252 rows), the smallest compact one an esxtop capture's
# 5,654 cells or a Vdbench run of 2,280 intervals.
ROW_LIMIT = 2000
EDGE_ROWS = 5  # rows written in full at each end of a compact table
DIGEST_HEX = 16  # first 64 bits of a column's sha256
# Where each parser's inputs come from: (folder, how it is written in an expected file).
# Every file below these folders that the parser detects has a case (checked below).
INPUT_ROOTS: dict[str, tuple[tuple[Path, str], ...]] = {
    "fio": (
        (SAMPLES / "fio", "../shared/samples/fio"),
        (FIXTURES / "fio" / "failed_jobs", "tests/fixtures/fio/failed_jobs"),
        (FIXTURES / "hcibench" / "results", "tests/fixtures/hcibench/results"),
    ),
    "hcibench": (
        (SAMPLES / "hcibench", "../shared/samples/hcibench"),
        (FIXTURES / "hcibench" / "results", "tests/fixtures/hcibench/results"),
        (FIXTURES / "hcibench" / "invalid", "tests/fixtures/hcibench/invalid"),
    ),
    "esxtop": ((SAMPLES / "esxtop", "../shared/samples/esxtop"),),
    "vsan_observer": (
        (FIXTURES / "vsan_observer" / "valid", "tests/fixtures/vsan_observer/valid"),
        (FIXTURES / "vsan_observer" / "invalid", "tests/fixtures/vsan_observer/invalid"),
    ),
    "vsan_perfsvc": (
        (SAMPLES / "vsan_perfsvc", "../shared/samples/vsan_perfsvc"),
        (FIXTURES / "vsan_perfsvc" / "valid", "tests/fixtures/vsan_perfsvc/valid"),
        (FIXTURES / "vsan_perfsvc" / "invalid", "tests/fixtures/vsan_perfsvc/invalid"),
    ),
    "vsan_capacity": (
        (SAMPLES / "vsan_capacity", "../shared/samples/vsan_capacity"),
        (FIXTURES / "vsan_capacity" / "valid", "tests/fixtures/vsan_capacity/valid"),
        (FIXTURES / "vsan_capacity" / "invalid", "tests/fixtures/vsan_capacity/invalid"),
    ),
    "vdbench": (
        (SAMPLES / "vdbench", "../shared/samples/vdbench"),
        (FIXTURES / "vdbench" / "valid", "tests/fixtures/vdbench/valid"),
        (FIXTURES / "vdbench" / "invalid", "tests/fixtures/vdbench/invalid"),
        (FIXTURES / "hcibench" / "results", "tests/fixtures/hcibench/results"),
    ),
    "published_figures": (
        # `results`, not `valid`: the app tests' reference warehouse loads every `*/valid`.
        (FIXTURES / "published_figures" / "results", "tests/fixtures/published_figures/results"),
        (FIXTURES / "published_figures" / "invalid", "tests/fixtures/published_figures/invalid"),
    ),
}
PARSERS: dict[str, ModuleType] = dict(REGISTERED)
# Inputs a parser must still be shown, though it does not detect them: the job file beside
# the fio samples, an article quoting HCIBench summaries, an Observer `_thumb` file (refused by
# `detect`, rejected by `parse`).
ALSO_UNDETECTED: dict[str, set[str]] = {
    "fio": {"../shared/samples/fio/generated-locally/fio-3.33__randrw.fio"},
    "hcibench": {
        "../shared/samples/hcibench/cleeistaken_Test-Profiles__Curve-README-with-fio-res-blocks.md"
    },
    "vsan_observer": {
        "tests/fixtures/vsan_observer/valid/vsan-observer-2024-06-08.10-00-00/jsonstats/dom/"
        "domobj-client-esx01.lab.local_thumb.json"
    },
}


# ------------------------------------------------------------------------- inputs


def input_path(written: str) -> Path:
    """The file an expected file names (`../shared/samples/...` follows PERF_SHARED_DIR)."""
    if written.startswith("../shared/samples/"):
        return SAMPLES / written.removeprefix("../shared/samples/")
    return REPO / written


def _hcibench_case(written: str) -> str | None:
    """The HCIBench case folder of an input, found the way the loader finds it."""
    if not written.startswith("tests/fixtures/hcibench/results/"):
        return None
    root = FIXTURES / "hcibench" / "results"
    known = {
        f"tests/fixtures/hcibench/results/{p.relative_to(root).as_posix()}" for p in root.rglob("*")
    }
    return hcibench_case_of(written, known)


def _candidate_inputs(parser: str) -> Iterator[tuple[str, str]]:
    """(case name, input as written) of every file under the parser's input roots, and of the
    hand-made inputs beside the expected files (`<case>.<ext>`)."""
    for path in sorted((GOLDEN / parser).glob("*")):
        if path.is_file() and not path.name.endswith(".expected.json"):
            yield path.stem, path.relative_to(REPO).as_posix()
    for folder, written_root in INPUT_ROOTS[parser]:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            relative = path.relative_to(folder).as_posix()
            if path.suffix == ".py":
                continue  # the fixture generator
            case = f"{written_root.rsplit('/', 1)[-1]}__{relative.replace('/', '__')}"
            yield case, f"{written_root}/{relative}"


def _belongs(parser: str, written: str) -> bool:
    path = input_path(written)
    return written in ALSO_UNDETECTED.get(parser, ()) or PARSERS[parser].detect(
        path.read_bytes()[:HEAD_BYTES], path.name
    )


# -------------------------------------------------------------------------- records


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def rows_as_json(rows: list[Any] | pa.Table) -> list[dict[str, Any]]:
    """A table's rows as JSON objects: dataclass rows field by field, Arrow tables row by row."""
    if isinstance(rows, pa.Table):
        return [_jsonable(row) for row in rows.to_pylist()]
    return [
        _jsonable({f.name: getattr(row, f.name) for f in dataclasses.fields(row)}) for row in rows
    ]


def _digest_text(value: Any) -> Any:
    """A value as the digest reads it: floats to 12 significant digits (a last-bit difference
    in float arithmetic is no change, any real change is), tagged so 5.0 is not 5 or "5.0"."""
    if isinstance(value, float):
        return f"<float {value:.12g}>"
    if isinstance(value, dict):
        return {k: _digest_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_digest_text(v) for v in value]
    return value


def column_digest(values: list[Any]) -> str:
    """A digest of one column, its values in row order."""
    text = json.dumps([_digest_text(v) for v in values], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_HEX]


def compact(rows: list[dict[str, Any]]) -> list[dict[str, Any]] | dict[str, Any]:
    """The rows in full up to ROW_LIMIT; past it, the row count, one digest per column over
    every row (so a value changed anywhere fails and the message names its column) and the
    first and last EDGE_ROWS rows in full, for the reviewer to read."""
    if len(rows) <= ROW_LIMIT:
        return rows
    columns = list(rows[0])
    return {
        "row_count": len(rows),
        "column_digests": {c: column_digest([row[c] for row in rows]) for c in columns},
        "first_rows": rows[:EDGE_ROWS],
        "last_rows": rows[-EDGE_ROWS:],
    }


def record_of(
    module: ModuleType, data: bytes, written: str, hcibench_case: str | None
) -> dict[str, Any]:
    """What parser `module` makes of `data` read from `written`: detection, then tables, notes
    and no-result reason, or the error."""
    name = written.rsplit("/", 1)[-1]
    result: dict[str, Any] = {
        "input": written,
        "hcibench_case": hcibench_case,
        "detected": bool(module.detect(data[:HEAD_BYTES], name)),
    }
    source = source_for(written, data, hcibench_case=hcibench_case)
    try:
        parsed = module.parse(data, source)
    except ParseError as exc:
        result["error"] = {"location": exc.location, "reason": exc.reason}
        return result
    result["notes"] = list(parsed.notes)
    result["no_result_reason"] = parsed.no_result_reason
    result["tables"] = {
        table: compact(rows_as_json(rows)) for table, rows in sorted(parsed.tables.items())
    }
    return result


def record(parser: str, written: str, hcibench_case: str | None) -> dict[str, Any]:
    """What `parser` makes of the input an expected file names."""
    return record_of(PARSERS[parser], input_path(written).read_bytes(), written, hcibench_case)


def _row_lines(rows: list[Any], indent: str) -> list[str]:
    last = len(rows) - 1
    return [f"{indent}{json.dumps(row)}{',' if r < last else ''}" for r, row in enumerate(rows)]


def render(expected: dict[str, Any]) -> str:
    """JSON with one row per line, so a regenerated file diffs row by row."""
    head = {k: v for k, v in expected.items() if k != "tables"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    if "tables" not in expected:
        lines[-1] = lines[-1].rstrip(",")
        return "\n".join([*lines, "}"]) + "\n"
    lines.append('  "tables": {')
    tables = list(expected["tables"].items())
    for t, (table, rows) in enumerate(tables):
        end = "," if t < len(tables) - 1 else ""
        if isinstance(rows, dict):  # compact
            lines.append(f"    {json.dumps(table)}: {{")
            lines.append(f'      "row_count": {rows["row_count"]},')
            lines.append(f'      "column_digests": {json.dumps(rows["column_digests"])},')
            lines.append('      "first_rows": [')
            lines.extend(_row_lines(rows["first_rows"], "        "))
            lines.append("      ],")
            lines.append('      "last_rows": [')
            lines.extend(_row_lines(rows["last_rows"], "        "))
            lines.append("      ]")
            lines.append("    }" + end)
            continue
        lines.append(f"    {json.dumps(table)}: [")
        lines.extend(_row_lines(rows, "      "))
        lines.append("    ]" + end)
    return "\n".join([*lines, "  }", "}"]) + "\n"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def differences(actual: Any, expected: Any, where: str = "") -> Iterator[str]:
    """Where `actual` departs from `expected`: floats within REL_TOLERANCE, the rest exact."""
    if isinstance(expected, float) and isinstance(actual, float):
        if not (
            math.isclose(actual, expected, rel_tol=REL_TOLERANCE)
            or (math.isnan(actual) and math.isnan(expected))
        ):
            yield f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected.keys() | actual.keys():
            if key not in actual or key not in expected:
                yield f"{where}.{key}: {'missing' if key not in actual else 'unexpected'}"
            else:
                yield from differences(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(actual) != len(expected):
            yield f"{where}: {len(actual)} items, expected {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected, strict=False)):
            yield from differences(a, e, f"{where}[{index}]")
    elif type(actual) is not type(expected) or actual != expected:
        yield f"{where}: {_short(actual)} != {_short(expected)}"


# ---------------------------------------------------------------------------- tests


def _expected_files() -> list[Path]:
    return sorted(GOLDEN.glob("*/*.expected.json"))


@pytest.mark.parametrize(
    "expected_file",
    _expected_files(),
    ids=lambda p: f"{p.parent.name}/{p.name.removesuffix('.expected.json')}",
)
def test_parser_output_matches_golden_file(expected_file: Path) -> None:
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    actual = json.loads(
        json.dumps(record(expected_file.parent.name, expected["input"], expected["hcibench_case"]))
    )
    found = list(differences(actual, expected))
    assert not found, f"{len(found)} difference(s), first: " + "; ".join(found[:10])


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_every_input_has_a_golden_file(parser: str) -> None:
    covered = {
        json.loads(p.read_text(encoding="utf-8"))["input"]
        for p in GOLDEN.glob(f"{parser}/*.expected.json")
    }
    missing = [w for _, w in _candidate_inputs(parser) if _belongs(parser, w) and w not in covered]
    assert not missing, (
        f"no golden file for {missing}: run python -m tests.ingest.test_golden --update"
    )


def test_every_parser_has_valid_and_invalid_golden_cases() -> None:
    # A parser added to the registry needs its input roots above and reviewed cases: at least
    # one file it reads and one it rejects with a located ParseError.
    assert set(INPUT_ROOTS) == set(PARSERS)
    for parser in PARSERS:
        kinds = {
            "error" in json.loads(p.read_text(encoding="utf-8"))
            for p in GOLDEN.glob(f"{parser}/*.expected.json")
        }
        assert kinds == {False, True}, parser


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_loader_picks_the_parser_and_its_rows_fit_the_declared_tables(parser: str) -> None:
    # GIVEN every golden input the parser detects and reads
    module = PARSERS[parser]
    for expected_file in sorted(GOLDEN.glob(f"{parser}/*.expected.json")):
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
        if not expected["detected"] or "error" in expected:
            continue
        path = input_path(expected["input"])
        data = path.read_bytes()
        # THEN the registry, trying every parser in its order, picks this one
        assert detect_format(data[:HEAD_BYTES], path.name) == parser, expected["input"]
        # AND each table is a declared one whose rows convert to its Arrow schema
        source = source_for(expected["input"], data, hcibench_case=expected["hcibench_case"])
        parsed = module.parse(data, source)
        for table, rows in parsed.tables.items():
            declared = module.TABLES[table]
            if isinstance(declared, pa.Schema):
                assert rows.schema == declared, (expected["input"], table)
            else:
                assert to_arrow(declared, rows).num_rows == len(rows), (expected["input"], table)


def test_a_value_changed_anywhere_in_a_compact_table_fails() -> None:
    # GIVEN a table too long to write in full, and the same table with one value changed in
    # the middle (never in the rows written in full), by one part in a million
    rows = [{"sample_index": i % 3, "value": float(i) / 7} for i in range(ROW_LIMIT + 1)]
    changed = [dict(row) for row in rows]
    changed[ROW_LIMIT // 2]["value"] *= 1 + 1e-6
    # WHEN both are compacted THEN the difference names the changed column, and only it
    found = list(differences(compact(changed), compact(rows), ".rows"))
    assert len(found) == 1 and found[0].startswith(".rows.column_digests.value: "), found
    # AND a last-bit difference of float arithmetic is no change
    changed[ROW_LIMIT // 2]["value"] = math.nextafter(rows[ROW_LIMIT // 2]["value"], math.inf)
    assert not list(differences(compact(changed), compact(rows)))


# --------------------------------------------------------------------------- update


def update() -> list[Path]:
    """Rewrite every golden file (and add one per new input) from the parsers as they are."""
    written_files = []
    for parser in PARSERS:
        folder = GOLDEN / parser
        folder.mkdir(parents=True, exist_ok=True)
        cases = {c: w for c, w in _candidate_inputs(parser) if _belongs(parser, w)}
        for existing in folder.glob("*.expected.json"):
            expected = json.loads(existing.read_text(encoding="utf-8"))
            cases[existing.name.removesuffix(".expected.json")] = expected["input"]
        for case, written in sorted(cases.items()):
            target = folder / f"{case}.expected.json"
            target.write_text(
                render(record(parser, written, _hcibench_case(written))), encoding="utf-8"
            )
            written_files.append(target)
    return written_files


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--update", action="store_true", help="regenerate every golden file")
    if not parser.parse_args().update:
        parser.error("nothing to do: pass --update (then review the diff by hand)")
    for path in update():
        print(path.relative_to(REPO))


if __name__ == "__main__":
    main()
