"""fio JSON documents read by orjson (the fast path) are the documents `json` with the
integer hook reads (the careful path), on every real fio sample and on the cases the careful
path exists for (ingest/parsers/fio/json_documents.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from ingest.parsers import fio
from ingest.parsers.fio import json_documents
from ingest.records import ParseError
from tests.conftest import SAMPLES
from tests.ingest.conftest import parse_bytes, source_for

FIO_SAMPLES = sorted(p for p in (SAMPLES / "fio").rglob("*") if p.is_file())


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, NaN equal to NaN (both paths read NaN as float nan)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def _split(text: str, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, Any, int]:
    """split_documents with or without the fast path, and how many documents it read."""
    calls = {"fast": 0}
    original = json_documents._fast_decode

    def counted(text: str, start: int) -> Any:
        found = original(text, start) if fast else None
        calls["fast"] += found is not None
        return found

    monkeypatch.setattr(json_documents, "_fast_decode", counted)
    source = source_for("/drop/fio.json", text.encode())
    documents, truncated = json_documents.split_documents(text, source)
    return documents, truncated, calls["fast"]


@pytest.mark.parametrize("path", FIO_SAMPLES, ids=lambda p: p.name)
def test_both_paths_read_every_sample_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        careful, careful_note, _ = _split(text, fast=False, monkeypatch=monkeypatch)
    except ParseError as careful_error:
        with pytest.raises(ParseError) as fast_error:
            _split(text, fast=True, monkeypatch=monkeypatch)
        assert str(fast_error.value) == str(careful_error)
        return
    fast, fast_note, _ = _split(text, fast=True, monkeypatch=monkeypatch)
    assert fast_note == careful_note
    assert [(d.start, d.end) for d in fast] == [(d.start, d.end) for d in careful]
    assert all(_same(f.value, c.value) for f, c in zip(fast, careful, strict=True))


def test_a_pretty_printed_report_is_read_by_the_fast_path(monkeypatch) -> None:
    path = SAMPLES / "fio" / "generated-locally" / "fio-3.33__json-status-interval-1s.json"
    documents, _, fast = _split(path.read_text(), fast=True, monkeypatch=monkeypatch)
    assert len(documents) > 1
    assert fast == len(documents)  # every dump, not one by the careful path


def _doc(body: str) -> str:
    return '{\n  "fio version" : "fio-3.33",\n  "jobs" : [\n    ' + body + "\n  ]\n}\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # fio's unsigned wrap: 2^64 - 1 passes 2^63; the careful path makes it a float
        ('{"jobname" : "a", "eta" : 0, "lat_ns" : 18446744073709551615}', 1.8446744073709552e19),
        ('{"jobname" : "a", "eta" : 0, "lat_ns" : NaN}', "nan"),
        ('{"jobname" : "a", "eta" : 0, "lat_ns" : 1e400}', math.inf),
    ],
)
def test_values_only_the_careful_path_reads_right_take_it(body, expected, monkeypatch) -> None:
    documents, _, fast = _split(_doc(body), fast=True, monkeypatch=monkeypatch)
    value = documents[0].value["jobs"][0]["lat_ns"]
    assert fast == 0
    assert math.isnan(value) if expected == "nan" else value == expected
    assert isinstance(value, float)


@pytest.mark.parametrize("before_boundary", [1, 10, 18])
def test_a_long_integer_across_the_digit_search_chunks_takes_the_careful_path(
    before_boundary, monkeypatch
):
    # the long-digit search reads 64 KiB at a time: a number across two reads is still found
    def text_with(pad: int) -> str:
        return _doc(f'{{"jobname" : "{"x" * pad}", "eta" : 0, "lat_ns" : 18446744073709551615}}')

    at = text_with(0).index("18446744073709551615")
    text = text_with(json_documents._CHUNK - before_boundary - at)
    assert text.index("18446744073709551615") == json_documents._CHUNK - before_boundary
    documents, _, fast = _split(text, fast=True, monkeypatch=monkeypatch)
    assert fast == 0
    assert documents[0].value["jobs"][0]["lat_ns"] == 1.8446744073709552e19


def test_a_compact_document_and_text_between_documents_take_the_careful_path(monkeypatch) -> None:
    compact = '{"jobs": [{"jobname": "a", "eta": 0}]}\n'
    text = compact + "fio: some warning\n" + _doc('{"jobname" : "b", "eta" : 0}')
    documents, _, fast = _split(text, fast=True, monkeypatch=monkeypatch)
    assert [d.value["jobs"][0]["jobname"] for d in documents] == ["a", "b"]
    assert fast == 1  # the pretty-printed one


def test_a_cut_off_document_keeps_the_careful_error_location() -> None:
    # cut inside the job entry: `json`'s own line and column, as before the fast path
    text = _doc('{"jobname" : "a", "eta" : 0}')[:-8]
    with pytest.raises(ParseError) as error:
        parse_bytes(fio, text.encode(), "/drop/cut.json")
    assert str(error.value) == (
        "/drop/cut.json: line 4, column 32: malformed or truncated JSON: Expecting ',' delimiter"
    )
