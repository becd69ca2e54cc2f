"""Finding fio's JSON documents in a file and reading their option objects.

A file may hold several documents (`--status-interval` dumps, `--output-format=normal,json`)
with text around them; fio pretty-prints each with `{` and `}` in column 0. Option objects
repeat keys (`filename` per file, client-mode options per server), which `json` would
collapse, so they are read again from the document's text.

Decoding is most of a fio load (issue 32: Python's `json` 39 % of it, its integer hook
another 13 %). So a document is first read whole by `orjson` (C; about 2x `json` on the same
documents) from its `{` in column 0 to the next `}` in column 0, where fio's pretty-printing
ends it. The careful path, `json` with `_int_or_overflow`, reads it instead whenever the fast
one could differ: a run of 19 or more digits (an integer that may pass 2^63, which orjson
keeps as an int up to 2^64 - 1 where the careful path makes it a float), NaN or Infinity and
a number past a double's range (orjson refuses them; `json` reads them), a document not
pretty-printed (no `}` in column 0, or text between two documents that makes the guessed
extent invalid) and every malformed or cut-off document (its error keeps `json`'s exact line
and column). Long digit runs are looked for once in the whole text (`_has_long_digit_run`,
one vectorised pass; real files hold none) and per document only in a text that has one.
Duplicate keys keep their last value in both, as `json` does;
tests/ingest/test_fio_fast_decode.py checks that both paths give identical documents on every
fio JSON sample.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from ingest.parsers._common import INT64_MAX
from ingest.parsers.fio.text import line_col
from ingest.records import ParseError, SourceFile


@dataclass(slots=True)
class Document:
    """One fio result document: where it sits in the text, and its value."""

    start: int
    end: int
    value: dict[str, Any]

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The job entries: `client_stats` in client/server mode, else `jobs`."""
        if "client_stats" in self.value:
            return list(self.value["client_stats"])
        return list(self.value.get("jobs") or [])

    @property
    def is_client_mode(self) -> bool:
        return "client_stats" in self.value

    @property
    def is_final(self) -> bool:
        """fio's final report: every job says eta == 0 (status dumps say INT_MAX)."""
        entries = self.entries
        return bool(entries) and all(e.get("eta", 0) == 0 for e in entries)

    @property
    def is_eta_unknown(self) -> bool:
        """Every job says eta == INT_MAX, fio's "unknown": what status dumps say, and what
        Debian's fio 3.33 also writes in the final report of a run shorter than about 1 s."""
        entries = self.entries
        return bool(entries) and all(e.get("eta") == ETA_UNKNOWN for e in entries)


# fio's `eta` when it cannot tell (INT_MAX).
ETA_UNKNOWN = 2**31 - 1


def split_documents(text: str, source: SourceFile) -> tuple[list[Document], str | None]:
    """Every JSON result document that starts at the beginning of a line, and a note when the
    last one is cut off. A `{` elsewhere (ETA text, errors) is not a start."""
    decoder = json.JSONDecoder(parse_int=_int_or_overflow)
    documents: list[Document] = []
    truncated: str | None = None
    long_numbers = _has_long_digit_run(text)
    start = 0 if text.startswith("{") else _next_line_brace(text, 0)
    while start >= 0:
        careful = long_numbers and _holds_long_digit_run(text, start)
        try:
            value, end = (None if careful else _fast_decode(text, start)) or decoder.raw_decode(
                text, start
            )
        except json.JSONDecodeError as exc:
            if documents:
                truncated = (
                    f"last JSON document is cut off at {line_col(text, exc.pos)} ({exc.msg})"
                )
                break
            raise ParseError(
                source.path, line_col(text, exc.pos), f"malformed or truncated JSON: {exc.msg}"
            ) from None
        if isinstance(value, dict) and ("jobs" in value or "client_stats" in value):
            documents.append(Document(start, end, value))
        start = _next_line_brace(text, end)
    return documents, truncated


# A run of 19 digits: an integer that may pass 2^63, which orjson would keep as an int. Found in
# a whole text as 19 ones in its digit mask (numpy), 64 KiB at a time: a mask of the whole 5 MB
# file at once cost 5x more (fresh memory for each of its temporary arrays), a regex 10x more.
# In one document: 19 zeros once every digit is mapped to a zero (bytes.translate).
_CHUNK = 64 * 1024
_DIGIT_MASK_RUN = b"\x01" * 19
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_DIGIT_RUN = b"0" * 19


def _has_long_digit_run(text: str) -> bool:
    overlap = len(_DIGIT_MASK_RUN) - 1  # a run across two chunks is whole in one of them
    for start in range(0, len(text), _CHUNK):
        chunk = text[start : start + _CHUNK + overlap].encode("utf-8", errors="surrogatepass")
        codes = np.frombuffer(chunk, dtype=np.uint8)
        if _DIGIT_MASK_RUN in ((codes - ord("0")) < 10).tobytes():  # uint8 wraps below "0"
            return True
    return False


def _holds_long_digit_run(text: str, start: int) -> bool:
    """Whether the document at `start`, up to the next `}` in column 0, holds a long digit run."""
    close = text.find("\n}", start)
    segment = text[start : close + 2 if close != -1 else len(text)]
    return _LONG_DIGIT_RUN in segment.encode("utf-8", errors="surrogatepass").translate(
        _DIGITS_AS_ZERO
    )


def _fast_decode(text: str, start: int) -> tuple[Any, int] | None:
    """The document at `start` and where it ends, read by orjson; None when orjson refuses it
    (see the module docstring) and the careful path must read it. The caller has ruled out long
    digit runs in it."""
    close = text.find("\n}", start)
    if close == -1:
        return None
    end = close + 2
    try:
        return orjson.loads(text[start:end]), end
    except orjson.JSONDecodeError:
        return None


def _int_or_overflow(digits: str) -> int | float:
    """An integer, or past 2^63 a float: fio's unsigned wraps (2^64 - 1 latencies) then reach
    the soundness check as values no BIGINT holds, which sets them aside with a reason, as
    it does the NaN/Infinity `json` reads by default."""
    value = int(digits)
    return value if abs(value) <= INT64_MAX else float(value)


def _next_line_brace(text: str, pos: int) -> int:
    """Where the next line starting with `{` begins, or -1."""
    found = text.find("\n{", pos)
    return found + 1 if found != -1 else -1


_OPTIONS_BLOCK = re.compile(r'"(global options|job options)"\s*:\s*\{(?P<body>[^{}]*)\}')
_OPTION_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def options_blocks(segment: str) -> list[tuple[str, dict[str, Any]]]:
    """(`global options` | `job options`, options) of a document's text, in order, with
    duplicate keys kept: a key seen with different values maps to the list of its values."""
    blocks = []
    for block in _OPTIONS_BLOCK.finditer(segment):
        options: dict[str, Any] = {}
        for key, value in _OPTION_PAIR.findall(block["body"]):
            key, value = json.loads(f'"{key}"'), json.loads(f'"{value}"')
            if key not in options:
                options[key] = value
            elif options[key] != value:
                previous = options[key] if isinstance(options[key], list) else [options[key]]
                if value not in previous:
                    options[key] = [*previous, value]
        blocks.append((block[1], options))
    return blocks
