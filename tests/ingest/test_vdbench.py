"""Vdbench parser: what the golden files cannot show.

What the parser makes of every real output, HCIBench VM stdout and fixture (valid and invalid)
is in tests/ingest/golden/vdbench (test_golden.py). Here: which files it claims and which not
(parameter files `parmfile.html` and response-time histograms `histogram.html` carry no run
results), and inputs built in the test (a version banner alone, NaN cpu columns, a fuzzed cell).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.parsers import vdbench
from ingest.records import SourceFile
from ingest.sources import source_for
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import rejection

VDB = SAMPLES / "vdbench"
HCIB_RESULTS = FIXTURES / "hcibench" / "results"

V50401 = "TheOtherOtherOperation_vdbconvert__vdbench50401_"
OCEAN = "masakioui_vdb_oceanstor__vdbench50407_"
TIGER = "tiger7z_vdbench_for_mac_m1__vdbench50407_"

# Files in shared/samples/vdbench that are not Vdbench run output, so not claimed.
NOT_CLAIMED = {
    f"{V50401}raw_sd_51wds_3rds__parmfile.html",
    f"{V50401}resp_time_buckets__histogram.html",
    f"{OCEAN}44hosts_raw_sd_38rds__parmfile.html",
    f"{TIGER}quick_test_-t__parmfile.html",
    f"{TIGER}resp_time_buckets__histogram.html",
    "garyjlittle_gofaster__markdown_quoting_HCIBench_vdb-8vmdk-100ws-4k-100rdpct-100randompct-"
    "8threads__hci-benchmarks-compare-hcibench-xray-results.md",
}


@pytest.mark.parametrize("name", sorted(NOT_CLAIMED))
def test_not_claimed(name: str) -> None:
    data = (VDB / name).read_bytes()
    assert not vdbench.detect(data[:65536], name)


def test_version_banner_without_runs_is_rejected() -> None:
    data = b"Vdbench distribution: vdbench50407 Tue June 05  9:49:29 MDT 2018\n"
    assert vdbench.detect(data, "vm.txt")
    error = rejection(vdbench, data, source_of_bytes(data))
    assert (error.location, error.reason) == (
        "end of file",
        "no 'Starting RD=' line: not a Vdbench run report",
    )


def source_of_bytes(data: bytes) -> SourceFile:
    return source_for("/tmp/vm.txt", data)


def test_does_not_claim_fio_or_hcibench_files(samples: Path) -> None:
    others = [p for p in (samples / "fio").rglob("*") if p.is_file()]
    others += [p for p in (samples / "hcibench").iterdir()]
    others += [p for p in HCIB_RESULTS.rglob("*") if p.is_file() and not p.name.endswith(".txt")]
    others += [p for p in HCIB_RESULTS.rglob("*-res.txt")]
    assert others
    for path in others:
        assert not vdbench.detect(path.read_bytes()[:65536], path.name), path.name


def test_claims_only_vdbench_output_among_all_samples(samples: Path) -> None:
    # GIVEN every real sample (all tools, PROVENANCE.md quoting Vdbench lines) WHEN detecting
    claimed = {
        p.relative_to(samples).as_posix()
        for p in samples.rglob("*")
        if p.is_file() and vdbench.detect(p.read_bytes()[:65536], p.name)
    }
    # THEN exactly the Vdbench run outputs are claimed: every file of the Vdbench folder but
    # the report pages that carry no run results
    outputs = {p.name for p in (samples / "vdbench").iterdir()} - NOT_CLAIMED
    assert claimed == {f"vdbench/{name}" for name in outputs}
    assert len(claimed) == 15


def test_single_interval_run_with_nan_cpu() -> None:
    # An RD with one interval prints an all-zero avg_2-1; Linux consoles show NaN for cpu.
    text = (
        b"Vdbench distribution: vdbench50406 Wed July 20 15:49:52 MDT 2016\n\n"
        b"11:02:03.004 Starting RD=format; I/O rate: Uncontrolled MAX; elapsed=1; For loops: None\n"
        b"\n"
        b"Nov 14, 2023  interval        i/o   MB/sec   bytes   read     resp     read    write"
        b"     resp     resp queue  cpu%  cpu%\n"
        b"                             rate  1024**2     i/o    pct     time     resp     resp"
        b"      max   stddev depth sys+u   sys\n"
        b"11:02:04.010         1     320.00    40.00  131072   0.00    0.055    0.000    0.055"
        b"    0.540    0.059   0.0   3.1   1.2\n"
        b"11:02:04.015   avg_2-1       0.00     0.00       0   0.00    0.000    0.000    0.000"
        b"    0.000    0.000   0.0   NaN   NaN\n"
    )
    parsed = vdbench.parse(text, source_of_bytes(text))
    (run,) = parsed.tables["vdbench_runs"]
    assert (run.avg_label, run.iops, run.cpu_sys_user_pct, run.cpu_sys_pct) == (
        "avg_2-1",
        0.0,
        None,
        None,
    )
    assert parsed.tables["vdbench_intervals"][0].cpu_sys_user_pct == 3.1


def test_fuzz_regression_infinite_whole_number_is_a_parse_error() -> None:
    # GIVEN a real flatfile whose bytes/io cell reads 1e400 (found by fuzzing: int(inf) raised
    # OverflowError)
    name = "masakioui_vdb_oceanstor__vdbench50407_38RDs_cpu_cols__flatfile.html"
    data = (VDB / name).read_bytes().replace(b" 309.8125 16384 ", b" 309.8125 1e400 ", 1)
    error = rejection(vdbench, data, source_for(f"/x/{name}", data))
    assert error.location == "line 348"
    assert error.reason == "column 'bytes/io': '1e400' is not a whole number"
