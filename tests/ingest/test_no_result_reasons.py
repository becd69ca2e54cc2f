"""Files that load but yield no workload result say why (`Parsed.no_result_reason`).

The load summary prints the reason even with --quiet, so no run disappears silently. Each case
is a real sample cut where a real run stops (a logfile of a run killed before its first
interval, a stdout without its avg_ line, a capture with one snapshot), or a header-only export.
The reason (or null) of every whole sample and fixture is in its golden case
(tests/ingest/golden).
"""

from __future__ import annotations

import re
from pathlib import Path

from ingest.parsers import hcibench, vdbench, vsan_observer, vsan_perfsvc
from tests.conftest import FIXTURES, HCIB28_VDB_STDOUT, POWERCLI_CSV, SAMPLES
from tests.ingest.conftest import parse_bytes

VDB = SAMPLES / "vdbench"
LOGFILE = VDB / "masakioui_vdb_oceanstor__vdbench50407_linux_version_line__logfile.html"
HCIB_STDOUT = HCIB28_VDB_STDOUT
OBSERVER_CAPTURE = FIXTURES / "vsan_observer" / "valid" / "observer.json"


def _up_to_line_after(path: Path, marker: str) -> bytes:
    """The file up to the end of the line holding `marker` (a run killed right after it)."""
    data = path.read_bytes()
    return data[: data.index(b"\n", data.index(marker.encode())) + 1]


def test_vdbench_logfile_without_intervals() -> None:
    parsed = parse_bytes(vdbench, _up_to_line_after(LOGFILE, " Starting RD="), "/v/logfile.html")
    assert parsed.tables["vdbench_runs"][0].rd_name == "rd1"
    assert parsed.no_result_reason == (
        "a Vdbench logfile without interval or avg_ lines: this report carries no measurements"
    )


def test_vdbench_stdout_killed_before_its_avg_line() -> None:
    data = HCIB_STDOUT.read_bytes()
    cut = data[: data.index(b"avg_")]
    parsed = parse_bytes(vdbench, cut, "/v/vm1.txt")
    intervals = re.findall(rb"^\d\d:\d\d:\d\d\.\d{3}\s+\d+\s", cut, re.MULTILINE)
    assert parsed.tables["vdbench_runs"][0].interval_count == len(intervals) == 30
    assert (
        parsed.no_result_reason == "no run finished (no avg_ line, the run was cut short): 'run1'"
    )


def test_hcibench_all_vms_finished_early() -> None:
    text = (
        b"Datastore     = vsanDatastore\n"
        b"All the VMs finished testing early, no results summarized\n"
    )
    parsed = parse_bytes(hcibench, text, "/r/t/fio-x-1700000000-res.txt")
    assert parsed.no_result_reason == (
        "HCIBench summarized no results: all the VMs finished testing early"
    )


def test_perfsvc_export_without_samples_loads_and_says_so() -> None:
    header = POWERCLI_CSV.read_bytes().splitlines(keepends=True)[0]
    parsed = parse_bytes(vsan_perfsvc, header, "/p/get-vsanstat.csv")
    assert parsed.tables["vsan_perfsvc_samples"] == []
    assert parsed.no_result_reason == (
        "no performance samples (a header or entities with an empty sampleInfo only)"
    )


def test_observer_capture_with_one_snapshot() -> None:
    first = OBSERVER_CAPTURE.read_bytes().splitlines(keepends=True)[0]
    parsed = parse_bytes(vsan_observer, first, "/o/observer.json")
    assert parsed.row_count() == 0
    assert parsed.no_result_reason == (
        "no samples: the capture needs two inventory snapshots of a host to give rates"
    )
