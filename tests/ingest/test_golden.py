"""Golden-file parser tests: every fio and HCIBench input, parsed, equals its reviewed record.

Each case is one `tests/ingest/golden/<parser>/<case>.expected.json`, naming its input by a
path relative to the repository (real samples stay in ../shared/samples) and holding what the
parser made of it: whether `detect` accepts it, every table's rows as JSON objects and the
notes and why the file yields no result when it loads without one, or the ParseError's
location and reason. Floats compare with a relative tolerance of 1e-9; everything else
exactly. See golden/README.md before regenerating:

    python -m tests.ingest.test_golden --update     # rewrite every case, then review the diff
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import enum
import json
import math
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ingest.parsers import fio, hcibench
from ingest.parsers.hcibench.case_folder import hcibench_case_of
from ingest.records import ParseError
from ingest.registry import HEAD_BYTES
from ingest.sources import source_for
from tests.conftest import FIXTURES, REPO, SAMPLES

GOLDEN = Path(__file__).parent / "golden"
PARSERS: dict[str, ModuleType] = {"fio": fio, "hcibench": hcibench}
REL_TOLERANCE = 1e-9
# Where each parser's inputs come from: (folder, how it is written in an expected file).
# Every file below these folders that the parser detects has a case (checked below).
INPUT_ROOTS: dict[str, tuple[tuple[Path, str], ...]] = {
    "fio": (
        (SAMPLES / "fio", "../shared/samples/fio"),
        (FIXTURES / "hcibench" / "results", "tests/fixtures/hcibench/results"),
    ),
    "hcibench": (
        (SAMPLES / "hcibench", "../shared/samples/hcibench"),
        (FIXTURES / "hcibench" / "results", "tests/fixtures/hcibench/results"),
        (FIXTURES / "hcibench" / "invalid", "tests/fixtures/hcibench/invalid"),
    ),
}
# Inputs a parser must still be shown, though it does not detect them: the job file beside
# the fio samples, and an article quoting HCIBench summaries.
ALSO_UNDETECTED = {
    "fio-3.33__randrw.fio",
    "cleeistaken_Test-Profiles__Curve-README-with-fio-res-blocks.md",
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
    return PARSERS[parser].detect(path.read_bytes()[:HEAD_BYTES], path.name) or (
        path.name in ALSO_UNDETECTED and written.startswith("../shared/samples/" + parser)
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


def record(parser: str, written: str, hcibench_case: str | None) -> dict[str, Any]:
    """What `parser` makes of the input: detection, then tables and notes or the error."""
    path = input_path(written)
    data = path.read_bytes()
    module = PARSERS[parser]
    result: dict[str, Any] = {
        "input": written,
        "hcibench_case": hcibench_case,
        "detected": bool(module.detect(data[:HEAD_BYTES], path.name)),
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
        table: [
            _jsonable({f.name: getattr(row, f.name) for f in dataclasses.fields(row)})
            for row in rows
        ]
        for table, rows in sorted(parsed.tables.items())
    }
    return result


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
        lines.append(f"    {json.dumps(table)}: [")
        lines.extend(
            f"      {json.dumps(row)}{',' if r < len(rows) - 1 else ''}"
            for r, row in enumerate(rows)
        )
        lines.append("    ]" + ("," if t < len(tables) - 1 else ""))
    return "\n".join([*lines, "  }", "}"]) + "\n"


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
        yield f"{where}: {actual!r} != {expected!r}"


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
