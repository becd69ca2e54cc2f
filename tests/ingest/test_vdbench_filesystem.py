"""Vdbench file-system runs (fsd/fwd/rd with `fwdrate`, issue 27).

Their interval lines print other columns than a raw sd/wd run: ReqstdOps rate and resp, cpu,
read %, read and write rate and resp, MB/sec read, write and total, the mean transfer size,
then a rate and resp per file operation (`open`, `close`, ... as the header names them). They
are measurements: a run cut before its `avg_` line is stored as unfinished with its intervals,
a finished one gives its average. Inputs are Vdbench 50407 output folders from a public
repository (tests/fixtures/vdbench/README.md); each expected number is read off the file.
"""

from __future__ import annotations

import pytest

from ingest.parsers import vdbench
from ingest.records import RunState
from ingest.registry import HEAD_BYTES, detect_format
from tests.conftest import FIXTURES, source_of
from tests.ingest.conftest import parse_file, rejection

VALID = FIXTURES / "vdbench" / "valid"
CUT = "fs_50407_read_1m_cut_after_6_intervals__"
READ_4K = "fs_50407_read_4k_avg_2-60__"
# The six interval lines of the cut run (summary.html lines 29-34): ReqstdOps rate and resp,
# MB/sec total and the mean transfer size.
CUT_IOPS = [22515, 38736, 22049, 24165, 20768, 19891]
CUT_RESP_MS = [1.272, 2.370, 5.512, 4.540, 10.072, 8.952]


def only_run(parsed):
    (run,) = parsed.tables["vdbench_runs"]
    return run


@pytest.mark.parametrize("page", ["summary.html", "logfile.html", "flatfile.html"])
def test_fs_run_cut_before_its_average_is_stored_unfinished_with_its_intervals(page):
    # GIVEN a file-system run killed after 6 of its 60 intervals (no avg_ line)
    path = VALID / (CUT + page)
    data = path.read_bytes()
    assert detect_format(data[:HEAD_BYTES], path.name) == "vdbench"
    # WHEN parsed THEN the run is stored unfinished, with why, and its 6 intervals
    parsed = parse_file(vdbench, path)
    run = only_run(parsed)
    assert (run.rd_name, run.state, run.interval_count) == ("rd1", RunState.unfinished, 6)
    assert "no avg_ line" in run.state_reason
    assert run.iops is None  # no result claims the whole run
    intervals = parsed.tables["vdbench_intervals"]
    assert [i.interval_index for i in intervals] == [1, 2, 3, 4, 5, 6]
    assert [round(i.iops) for i in intervals] == CUT_IOPS
    assert [i.resp_ms for i in intervals] == pytest.approx(CUT_RESP_MS, abs=6e-4)
    # the flatfile of a file-system run prints no read %, only the read and write rates
    assert intervals[0].read_pct == (None if page == "flatfile.html" else 100.0)
    assert intervals[0].read_iops == 22515 and intervals[0].write_iops == 0
    assert intervals[0].bytes_per_io == 859336  # `.xfer.. size`: mean bytes per operation
    assert intervals[0].mib_per_s == pytest.approx(18451, abs=1)
    (output,) = parsed.tables["vdbench_outputs"]
    assert output.workload_kind == "filesystem"
    assert parsed.no_result_reason == (
        "no run finished (no avg_ line, the run was cut short): 'rd1'"
    )


def test_fs_interval_lines_keep_every_file_operation_the_header_names():
    parsed = parse_file(vdbench, VALID / (CUT + "summary.html"))
    first = parsed.tables["vdbench_intervals"][0]
    # `....open.... ...close....`: 5992 opens/s at 6.315 ms, 5808 closes/s at 0.212 ms
    assert first.fs_operations_json == {
        "open": {"rate_per_s": 5992.0, "resp_ms": 6.315},
        "close": {"rate_per_s": 5808.0, "resp_ms": 0.212},
    }


@pytest.mark.parametrize("page", ["summary.html", "totals.html", "logfile.html", "flatfile.html"])
def test_finished_fs_run_gives_its_average(page):
    parsed = parse_file(vdbench, VALID / (READ_4K + page))
    run = only_run(parsed)
    # `avg_2-60  33891  1.874  63.1 62.7 100.0  33891  1.874  0.0  0.000 132.3  0.00 132.32  4093`
    assert (run.state, run.avg_label) == (RunState.ok, "avg_2-60")
    assert run.iops == pytest.approx(33891, abs=1)
    assert run.resp_ms == pytest.approx(1.874, abs=6e-4)
    assert run.read_iops == pytest.approx(33891, abs=1)
    assert run.mib_per_s == pytest.approx(132.32, abs=0.01)
    assert run.bytes_per_io == 4093
    assert run.read_pct == (None if page == "flatfile.html" else 100.0)
    assert parsed.no_result_reason is None


def test_fs_format_run_is_not_a_measurement():
    # `Starting RD=format_for_rd1`: Vdbench creating the files, with mkdir..delete columns
    parsed = parse_file(
        vdbench, VALID / "fs_50407_format_run_mkdir_to_delete_columns__summary.html"
    )
    run = only_run(parsed)
    assert run.rd_name == "format_for_rd1" and run.is_format_run
    assert run.interval_count == 42 and run.iops == pytest.approx(54105)
    assert list(run.fs_operations_json) == ["mkdir", "rmdir", "create", "open", "close", "delete"]
    assert (
        parsed.no_result_reason == "only Vdbench's automatic format run: no workload was measured"
    )


def test_raw_run_cut_before_its_average_says_why_too():
    # the sibling: a raw (sd/wd) HCIBench VM stdout cut before its avg_ line
    path = (
        FIXTURES
        / "hcibench"
        / "results"
        / "hcib28"
        / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
        / "hci-vdb-datastore-2004-0-2.txt"
    )
    parsed = parse_file(vdbench, path)
    run = only_run(parsed)
    assert run.state == RunState.unfinished and run.interval_count > 0
    assert "no avg_ line" in run.state_reason
    assert parsed.tables["vdbench_outputs"][0].workload_kind == "raw"


def test_a_header_whose_interval_label_is_glued_to_other_text_is_refused_at_its_line():
    # GIVEN a real file-system summary whose first column header has `x..Interval..` (found by
    # the fuzz benchmark: the parser raised StopIteration instead of a ParseError)
    data, source = source_of(VALID / (READ_4K + "summary.html"))
    lines = data.split(b"\n")
    number = next(i for i, line in enumerate(lines) if b"..Interval.. .ReqstdOps" in line)
    lines[number] = lines[number].replace(b"..Interval..", b"x..Interval..", 1)
    # WHEN parsed THEN it is refused at that line, saying what it could not read
    error = rejection(vdbench, b"\n".join(lines), source)
    assert error.location == f"line {number + 1}"
    assert "file-system column header" in str(error)
