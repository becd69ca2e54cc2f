"""Vdbench outputs cut at every byte of their last lines keep only whole numbers.

A Vdbench killed mid-write leaves a last line without its newline. Even when it has all its
columns, its last number may be a prefix of the printed one (`3` of `3.7`), and a short row
must not cost the rows before it. Every cut of the last lines of real outputs either keeps
rows equal to the whole file's, or drops the cut row with a note.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from ingest.parsers import vdbench
from ingest.records import Parsed, ParseError, RunState
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import parse_bytes

VDB = SAMPLES / "vdbench"
OUTPUTS = [
    FIXTURES
    / "hcibench"
    / "results"
    / "hcib28"
    / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
    / "hci-vdb-datastore-2004-0-1.txt",
    VDB
    / "tiger7z_vdbench_for_mac_m1__vdbench50407_space_separated_read_max_write_max__flatfile.html",
    VDB / "tiger7z_vdbench_for_mac_m1__vdbench50407_macOS__logfile.html",
    VDB / "TheOtherOtherOperation_vdbconvert__vdbench50401_totals_3RDs_avg_2-60__totals.html",
]
LAST_LINES = 6


def _rows(parsed: Parsed, table: str) -> list[dict]:
    return [dataclasses.asdict(r) for r in parsed.tables[table]]


def _last_lines_start(data: bytes) -> int:
    ends = [i for i, b in enumerate(data) if b == ord("\n")]
    return ends[-LAST_LINES - 1] + 1


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: p.name[-40:])
def test_cut_at_every_byte_of_the_last_lines(path: Path) -> None:
    data = path.read_bytes()
    full = parse_bytes(vdbench, data, f"/v/{path.name}")
    whole_intervals = _rows(full, "vdbench_intervals")
    whole_runs = {r["run_index"]: r for r in _rows(full, "vdbench_runs")}
    for end in range(_last_lines_start(data), len(data)):
        try:
            cut = parse_bytes(vdbench, data[:end], f"/v/{path.name}")
        except ParseError as exc:  # only when nothing sound is left
            pytest.fail(f"cut at byte {end} rejected: {exc}")
        intervals = _rows(cut, "vdbench_intervals")
        assert intervals == whole_intervals[: len(intervals)], end
        for run in _rows(cut, "vdbench_runs"):
            whole = whole_runs[run["run_index"]]
            if run["state"] is RunState.ok:
                assert run == whole, end
            else:  # a run whose avg_ line was cut: no totals, never a partial number
                assert run["iops"] is None and run["avg_label"] is None
        last = data[:end].rsplit(b"\n", 1)[-1]
        if re.match(rb"\s*(<[^>]*>)*\d\d:\d\d:\d\d\.\d{3}\s+(avg_\S+|\d+)\s+\d", last):
            assert any("cut short" in n for n in cut.notes), end  # a data line, dropped


def test_cpu_column_cut_mid_number_is_dropped() -> None:
    """The avg_ line of a HCIBench VM stdout cut after `3` of its last cpu column `3.x`."""
    data = OUTPUTS[0].read_bytes()
    start = data.index(b"avg_")
    line_end = data.index(b"\n", start)
    cut = data[: line_end - 1]  # the last digit of the line gone: still 13 numbers
    assert len(data[start:line_end].split()) == len(cut[start:].split())
    parsed = parse_bytes(vdbench, cut, "/v/vm1.txt")
    run = parsed.tables["vdbench_runs"][0]
    assert run.state is RunState.unfinished and run.cpu_sys_pct is None
    assert parsed.no_result_reason is not None
