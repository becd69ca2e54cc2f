"""Helpers the parser tests share: parse a file as the loader would, and catch a rejection."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ingest.records import Parsed, ParseError, SourceFile
from ingest.sources import source_for
from tests.conftest import source_of


def cases(*rows: tuple[Any, ...]) -> list[Any]:
    """pytest params from rows written `(id, value, ...)`, so that a case reads as one line."""
    return [pytest.param(*values, id=case_id) for case_id, *values in rows]


def parse_file(parser: ModuleType, path: Path, **source: Any) -> Parsed:
    """What `parser` makes of the file at `path` (`source` as for `tests.conftest.source_of`)."""
    return parser.parse(*source_of(path, **source))


def parse_bytes(parser: ModuleType, data: bytes, path: str = "/drop/capture") -> Parsed:
    """What `parser` makes of `data`, as if read from the logical path `path`."""
    return parser.parse(data, source_for(path, data))


def rows_of(parser: ModuleType, path: Path, table: str) -> list[Any]:
    """The rows of one raw table that `parser` makes of the file at `path`."""
    return parse_file(parser, path).tables[table]


def rejection(parser: ModuleType, data: bytes, source: SourceFile) -> ParseError:
    """The ParseError `parser` raises for `data`; the test fails when it parses instead."""
    with pytest.raises(ParseError) as caught:
        parser.parse(data, source)
    return caught.value


def assert_rejected(parser: ModuleType, path: Path, location: str, reason: str) -> ParseError:
    """The file at `path` is rejected at `location`, for a reason that contains `reason`."""
    error = rejection(parser, *source_of(path))
    assert error.location == location
    assert reason in error.reason
    return error


def assert_fields(row: Any, expected: dict[str, Any]) -> None:
    """Each named field of `row` has the expected value (floats to pytest.approx)."""
    for key, value in expected.items():
        actual = getattr(row, key)
        if isinstance(value, float):
            assert actual == pytest.approx(value), key
        else:
            assert actual == value, key
