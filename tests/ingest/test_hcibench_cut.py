"""HCIBench `-res.txt` summaries cut at every byte: a cut value is never stored.

A summary copied while HCIBench was still writing it ends mid-line: `CPU USAGE = 4` where the
whole file says `CPU USAGE = 45.3%`. Each fixture summary is cut after every one of its bytes;
whatever the parser keeps of a cut file must be what it reads from the whole file (or None),
and a file that ends inside a line is marked partial with a note naming the line.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from ingest.parsers import hcibench
from ingest.records import Parsed, ParseError
from ingest.sources import source_for
from tests.conftest import FIXTURES

RESULTS = FIXTURES / "hcibench" / "results"
SUMMARIES = sorted(RESULTS.glob("*/*-res.txt"))
FIO25 = (
    RESULTS / "hcib25-fio" / "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000-res.txt"
)
VDB25 = (
    RESULTS / "hcib25-vdb" / "vdb-2vmdk-100ws-4k-70rdpct-100randompct-2threads-1700400000-res.txt"
)
FIO28 = RESULTS / "hcib28" / "fio-4vmdk-50ws-8k-70rdpct-100randompct-2threads-1700100000-res.txt"
# Facts that a cut legitimately changes: counts of what was read, flags of what was seen.
MAY_DIFFER = {
    "hcibench_cases": {
        "is_partial",
        "cut_line",
        "block_count",
        "datastore_count",
        "all_vms_finished_early",
        "has_performance_diag",
    },
    "hcibench_summary_blocks": {"is_partial", "vms_finished_early", "latency_decimals"},
}


def _parse(data: bytes, path: Path) -> Parsed:
    case = path.as_posix().removesuffix("-res.txt")
    return hcibench.parse(data, source_for(path.as_posix(), data, hcibench_case=case))


def _fields(row: Any) -> dict[str, Any]:
    return {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}


def _is_prefix_of(cut: dict[str, Any], full: dict[str, Any], table: str) -> bool:
    """Every field of the cut row is the whole file's value or None."""
    differ = MAY_DIFFER.get(table, set())
    return all(k in differ or v is None or v == full[k] for k, v in cut.items())


def _check_cut(full: Parsed, cut: Parsed, data: bytes) -> None:
    for table, rows in cut.tables.items():
        whole = [_fields(r) for r in full.tables[table]]
        for row in rows:
            fields = _fields(row)
            assert any(_is_prefix_of(fields, w, table) for w in whole), (table, fields)
            # An early-finish count hidden by a cut makes the block partial, unless the cut
            # falls on a line end after whole blocks: such a file cannot be told from a whole one.
            at_line_end = data.endswith(b"\n")
            if table == "hcibench_summary_blocks" and not (fields["is_partial"] or at_line_end):
                match = [w for w in whole if w["block_index"] == fields["block_index"]]
                assert fields["vms_finished_early"] == match[0]["vms_finished_early"]
    last = data.rsplit(b"\n", 1)[-1].strip()
    # RVC's fixed footnotes under the table end nothing early when they are whole
    footnote = last.startswith((b"cpu.usage - ", b"cpu.utilization - ")) and last.endswith(b".")
    ends_mid_line = not data.endswith(b"\n") and last and not footnote
    case = cut.tables["hcibench_cases"][0]
    if ends_mid_line:
        assert case.is_partial and case.cut_line == data.count(b"\n") + 1
        assert any(f"line {case.cut_line}: " in n and "incomplete" in n for n in cut.notes)


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: p.name[:40])
def test_a_summary_cut_at_any_byte_keeps_only_whole_values(path: Path) -> None:
    data = path.read_bytes()
    full = _parse(data, path)
    assert not full.tables["hcibench_cases"][0].is_partial
    loaded = 0
    for end in range(1, len(data)):
        try:
            cut = _parse(data[:end], path)
        except ParseError as exc:
            assert re.fullmatch(r"line \d+|end of file", exc.location), exc.location
            continue
        loaded += 1
        _check_cut(full, cut, data[:end])
    assert loaded > len(data) // 2  # most cuts keep the blocks read before them


@pytest.mark.parametrize("terminator", [b"", b"\n"], ids=["no newline", "newline"])
def test_cpu_usage_cut_mid_number_is_not_stored(terminator: bytes) -> None:
    data = FIO25.read_bytes()
    whole = re.search(rb"^CPU USAGE\t= (\d+)\.\d+%$", data, re.MULTILINE)
    assert whole is not None  # 45.3% in the whole file
    cut = data[: whole.start(1) + len(whole[1])] + terminator  # `CPU USAGE\t= 45`
    parsed = _parse(cut, FIO25)
    full_rows = _parse(data, FIO25).tables["hcibench_resource_usage"]
    assert full_rows[0].cpu_usage_pct == pytest.approx(float(whole[0].split(b"= ")[1][:-1]))
    assert parsed.tables["hcibench_resource_usage"] == []  # 45 is never kept for 45.3
    case = parsed.tables["hcibench_cases"][0]
    assert case.is_partial and case.cut_line == 13
    assert "line 13: 'CPU USAGE\\t= 45' is incomplete" in parsed.notes[0]
    # the block above the cut is whole: its figures are the file's
    block = parsed.tables["hcibench_summary_blocks"][0]
    assert block.iops == pytest.approx(51102.38) and not block.is_partial


def test_latency_cut_mid_block_keeps_the_values_before_it() -> None:
    data = VDB25.read_bytes()
    at = data.index(b"R_LATENCY   = 0.45") + len(b"R_LATENCY   = 0.45")
    parsed = _parse(data[:at], VDB25)
    block = parsed.tables["hcibench_summary_blocks"][0]
    full = _parse(data, VDB25).tables["hcibench_summary_blocks"][0]
    assert full.read_latency_ms_vm_avg == pytest.approx(0.4535)
    assert block.read_latency_ms_vm_avg is None and block.write_latency_ms_vm_avg is None
    assert block.latency_ms_vm_avg == pytest.approx(0.67) == full.latency_ms_vm_avg
    assert block.iops == pytest.approx(5358.63) and block.throughput_mib_per_s == 20.93
    assert block.is_partial and parsed.tables["hcibench_cases"][0].is_partial


def test_table_row_cut_drops_the_host_and_the_average() -> None:
    data = FIO28.read_bytes()
    at = data.index(b"| 10.156.130.14 | 51.06      | 33.4") + len(b"| 10.156.130.14 | 51.06  ")
    for cut in (data[:at], data[:at] + b"\n"):
        rows = _parse(cut, FIO28).tables["hcibench_resource_usage"]
        assert [r.host_name for r in rows] == ["10.156.130.11", "10.156.130.12", "10.156.130.13"]
        assert [r.cpu_usage_pct for r in rows] == [52.4, 49.13, 50.9]


def test_iops_cut_rejects_a_lone_block_with_its_line() -> None:
    data = FIO25.read_bytes()
    at = data.index(b"IOPS\t\t= 51102.38") + len(b"IOPS\t\t= 5110")
    with pytest.raises(ParseError) as caught:
        _parse(data[:at], FIO25)
    assert caught.value.location == "line 3"  # the JOB_NAME line opening the block
    assert "lacks IOPS" in caught.value.reason


RESOURCE_UTIL = (
    RESULTS
    / "hcib28"
    / "fio-4vmdk-50ws-8k-70rdpct-100randompct-2threads-1700100000"
    / "resource_util.info"
)


def test_resource_util_info_cut_at_any_byte_keeps_only_whole_rows() -> None:
    data = RESOURCE_UTIL.read_bytes()
    case = RESOURCE_UTIL.parent.as_posix()
    full = hcibench.parse(data, source_for(RESOURCE_UTIL.as_posix(), data, hcibench_case=case))
    whole = [_fields(r) for r in full.tables["hcibench_resource_usage"]]
    assert [w["cpu_usage_pct"] for w in whole][:2] == [52.4, 49.13]
    kept = 0
    for end in range(data.index(b"| 10.156.130.11"), len(data)):  # every byte of the rows
        cut = data[:end]
        try:
            parsed = hcibench.parse(
                cut, source_for(RESOURCE_UTIL.as_posix(), cut, hcibench_case=case)
            )
        except ParseError:
            continue  # no whole host row yet
        rows = [_fields(r) for r in parsed.tables["hcibench_resource_usage"]]
        assert rows == whole[: len(rows)], end
        kept += 1
    assert kept > 0


def test_whole_footnote_without_newline_is_not_a_cut() -> None:
    """HCIBench may end the table's footnote without a newline (as in resource_util.info)."""
    data = (
        RESULTS
        / "hcib28"
        / "group1-fio-1vmdk-100ws-64k-0rdpct-0randompct-1threads-1700300000-res.txt"
    ).read_bytes()
    assert data.endswith(b"cpu.utilization - Provides statistics for physical CPUs.\n")
    parsed = _parse(data.rstrip(b"\n"), RESULTS / "hcib28" / "group1-x-1700300000-res.txt")
    assert not parsed.tables["hcibench_cases"][0].is_partial and parsed.notes == []
    cut = _parse(data.rstrip(b"\n")[:-1], RESULTS / "hcib28" / "group1-x-1700300000-res.txt")
    assert cut.tables["hcibench_cases"][0].is_partial
