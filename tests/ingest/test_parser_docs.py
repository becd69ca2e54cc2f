"""Each parser's docstring opens with a real input and the rows it yields, and stays true.

jc's parser modules (`jc/parsers/iostat.py`) open with "Usage" and "Examples": a short real
input and what the parser makes of it. Ours do the same, copied from a golden case and trimmed,
in this form (read by `example_of`):

    Example
    -------
    Trimmed from the golden case `<parser>/<case>` (a row shows some of its fields):

        $ cat <path>                   the logical path the parser is given
        <input, 4 spaces in; a long line folds with a trailing backslash, as in Python>

        <table>: <n> rows              every table the parser returns, with its row count
          {"field": value, ...}        each row in order; some fields, JSON (may wrap lines)
        notes: [...]                   optional: the notes, exactly

This test parses the input with the parser, as the loader would, and checks every table, count
and shown field (floats as in the golden files), so a docstring cannot go stale; and that the
input was copied from the golden case's file (every word of it occurs there).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

from ingest.registry import PARSERS
from ingest.sources import source_for
from tests.ingest.test_golden import GOLDEN, differences, input_path, rows_as_json

_HEADING = "Example\n-------\n"
_CASE = re.compile(r"golden case\s+`(?P<case>[^`]+)`")
_CAT = re.compile(r"^    \$ cat (?P<path>\S+)$")
_TABLE = re.compile(r"^    (?P<table>[a-z_]+): (?P<count>\d+) rows?$")
_NOTES = re.compile(r"^    notes: (?P<notes>\[.*\])$")
_ROW_INDENT = " " * 6
_WORD = re.compile(r"[^\s,;\"'{}\[\]:=()<>]+")


@dataclass
class Example:
    case: str
    path: str
    text: str
    tables: dict[str, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)
    notes: list[str] | None = None


def example_of(module: ModuleType) -> Example:
    """The example block of a parser's docstring (see the module docstring for its form)."""
    doc = module.__doc__ or ""
    assert _HEADING in doc, f"{module.__name__}: no 'Example' section"
    # A raw docstring keeps a fold's backslash and line end; a plain one has joined them.
    lines = doc.split(_HEADING, 1)[1].replace("\\\n", "").split("\n")
    case = _CASE.search("\n".join(lines[:4]))
    assert case, f"{module.__name__}: the example names no golden case"
    start = next(i for i, line in enumerate(lines) if _CAT.match(line))
    path = _CAT.match(lines[start])["path"]
    end = next(i for i, line in enumerate(lines) if i > start and _TABLE.match(line))
    body = [line[4:] for line in lines[start + 1 : end]]
    while body and not body[-1]:
        body.pop()
    # A long case name may wrap: it holds no spaces.
    example = Example("".join(case["case"].split()), path, "\n".join(body) + "\n")
    table, pending = None, ""
    for line in lines[end:]:
        if not line.strip():
            if table is None or pending:
                continue
            break  # the block ends at the first blank line after its rows
        if not line.startswith("    "):
            break
        if match := _TABLE.match(line):
            table = match["table"]
            example.tables[table] = (int(match["count"]), [])
        elif match := _NOTES.match(line):
            example.notes = json.loads(match["notes"])
        else:
            assert table and line.startswith(_ROW_INDENT), f"{module.__name__}: {line!r}"
            pending += line.strip() + " "
            try:
                row = json.loads(pending)
            except json.JSONDecodeError:
                continue  # a row wrapped over several lines
            example.tables[table][1].append(row)
            pending = ""
    assert not pending, f"{module.__name__}: unfinished row {pending!r}"
    return example


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_docstring_example_is_what_the_parser_yields(parser: str) -> None:
    module = PARSERS[parser]
    example = example_of(module)
    # GIVEN the example's input, as the loader would hand it to the parser
    data = example.text.encode("utf-8")
    assert module.detect(data, example.path.rsplit("/", 1)[-1])
    parsed = module.parse(data, source_for(example.path, data))
    # THEN it yields exactly the tables shown, each with the rows shown, in order
    assert set(example.tables) == set(parsed.tables)
    for table, (count, shown) in example.tables.items():
        rows = json.loads(json.dumps(rows_as_json(parsed.tables[table])))
        assert len(rows) == count == len(shown), table
        for index, (row, expected) in enumerate(zip(rows, shown, strict=True)):
            assert set(expected) <= set(row), (table, index, set(expected) - set(row))
            found = list(differences({k: row[k] for k in expected}, expected, table))
            assert not found, f"{table}[{index}]: " + "; ".join(found)
    if example.notes is not None:
        assert parsed.notes == example.notes


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_docstring_example_is_copied_from_its_golden_case(parser: str) -> None:
    example = example_of(PARSERS[parser])
    assert example.case.startswith(f"{parser}/")
    golden = GOLDEN / f"{example.case}.expected.json"
    assert golden.is_file(), golden
    source = input_path(json.loads(golden.read_text(encoding="utf-8"))["input"])
    original = source.read_text(encoding="utf-8")
    missing = [word for word in _WORD.findall(example.text) if word not in original]
    assert not missing, f"not in {source.name}: {missing[:10]}"


def test_docstring_example_opens_the_docstring() -> None:
    # jc's order: a one-line summary, then Usage and the Example, then the prose
    for parser, module in PARSERS.items():
        doc = module.__doc__ or ""
        usage, example = doc.find("Usage\n-----\n"), doc.find(_HEADING)
        assert 0 < usage < example, parser
        assert doc.count("\n\n", 0, usage) == 1, f"{parser}: more than a summary before Usage"
