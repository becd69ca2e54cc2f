"""Reading values out of HCIBench's text files: numbered lines and numbers that must be
numbers (a ParseError naming the line when not) or may be absent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ingest.parsers._common import line_error
from ingest.records import SourceFile


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without trailing blanks)."""
    for number, line in enumerate(text.splitlines(), start=1):
        yield number, line.rstrip()


def number(text: str, source: SourceFile, line_no: int, what: str) -> float:
    """`text` as a float, or a ParseError naming the line and what the number was."""
    try:
        return float(text)
    except ValueError:
        raise line_error(source, line_no, f"{what}: {text!r} is not a number") from None


def is_number(text: str) -> bool:
    """A plain unsigned decimal: `4`, `70`, `4.5`."""
    return bool(re.fullmatch(r"\d+(\.\d+)?", text.strip()))


def header_number(header: dict[str, Any], key: str) -> float | None:
    value = header.get(key)
    return float(value) if isinstance(value, str) and is_number(value) else None


def int_or_none(text: str | None) -> int | None:
    return int(text) if text and text.strip().isdigit() else None


def none_text(text: str | None) -> str | None:
    """HCIBench writes a missing value as `None` or nothing."""
    return None if text in (None, "", "None") else text
