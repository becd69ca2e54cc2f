"""Detection asks fio first when a head opens with fio's JSON version key
(`ingest.registry.detect_format`); the answer must be the one the ordered detectors give, on
every real sample and fixture the tests hold, and on fio's JSON quoted by a document."""

from __future__ import annotations

from pathlib import Path

from ingest.parsers._common import normalize_text_encoding
from ingest.registry import HEAD_BYTES, detect_format, detect_in_order
from tests.conftest import FIXTURES, SAMPLES


def _heads() -> list[tuple[Path, bytes]]:
    files = sorted(p for root in (SAMPLES, FIXTURES) for p in root.rglob("*") if p.is_file())
    return [(p, normalize_text_encoding(p.read_bytes())[0][:HEAD_BYTES]) for p in files]


def test_every_sample_and_fixture_is_detected_as_in_order():
    heads = _heads()
    differ = [
        (str(p), detect_format(head, p.name), detect_in_order(head, p.name))
        for p, head in heads
        if detect_format(head, p.name) != detect_in_order(head, p.name)
    ]
    assert differ == []
    fio_json = [p for p, head in heads if head.lstrip().startswith(b'{\n  "fio version"')]
    assert len(fio_json) >= 10  # the fast path is exercised


def test_fio_json_in_a_markdown_file_is_still_a_document():
    head = b'{\n  "fio version" : "fio-3.33",\n  "jobs" : []\n}\n'
    assert detect_format(head, "vm-1.json") == "fio"
    assert detect_format(head, "README.md") is None
