"""Vdbench parser: real Vdbench output folders, HCIBench-style per-VM stdout, bad input.

Every expected number below was read off the file named in the same row (FORMATS.md 2.5 gives
the column order). Parameter files (`parmfile.html`) and response-time histograms
(`histogram.html`) are deliberately not claimed by this parser: they carry no run results.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.parsers import vdbench
from ingest.records import RunState, SourceFile
from ingest.registry import detect_format
from ingest.sources import source_for
from ingest.tables import to_arrow
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import assert_fields, assert_rejected, cases, parse_file, rejection

VDB = SAMPLES / "vdbench"
FIXTURE_DIR = FIXTURES / "vdbench"
HCIB_RESULTS = FIXTURES / "hcibench" / "results"

V50401 = "TheOtherOtherOperation_vdbconvert__vdbench50401_"
V504XX = "TheOtherOtherOperation_vdbconvert__vdbench504xx_"
OCEAN = "masakioui_vdb_oceanstor__vdbench50407_"
TIGER = "tiger7z_vdbench_for_mac_m1__vdbench50407_"
JFRITZEN = "jfritzen_VdbenchExplorer__pre-5.04_flatfile_no_read_write_resp__VdbenchFlatfile.html"

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

# file, output facts, run index to check, run facts
REAL = [
    pytest.param(
        f"{V50401}raw_2hosts_3RDs_avg_2-60_old_layout_cpu_cols__summary.html",
        {
            "output_kind": "summary",
            "vdbench_version": None,
            "column_layout": "50406",
            "has_cpu_columns": True,
            "run_count": 3,
            "interval_count": 180,
            "completed_successfully": True,
        },
        0,
        {
            "rd_name": "rd1",
            "io_rate_text": "50",
            "elapsed_s": 60,
            "for_loops": "threads=2",
            "avg_label": "avg_2-60",
            "iops": 50.02,
            "mib_per_s": 0.20,
            "bytes_per_io": 4096,
            "read_pct": 75.91,
            "resp_ms": 5.395,
            "read_resp_ms": 6.944,
            "write_resp_ms": 0.516,
            "resp_max_ms": 96.066,
            "resp_stddev_ms": 10.097,
            "queue_depth": 0.3,
            "cpu_sys_user_pct": 1.2,
            "cpu_sys_pct": 0.2,
            "read_max_ms": None,
        },
        id="50401-summary",
    ),
    pytest.param(
        f"{V50401}totals_3RDs_avg_2-60__totals.html",
        {
            "output_kind": "totals",
            "column_layout": "50406",
            "run_count": 3,
            "interval_count": 0,
            "completed_successfully": None,
        },
        1,
        {
            "rd_name": "rd2",
            "io_rate_text": "500",
            "iops": 212.42,
            "mib_per_s": 0.83,
            "resp_ms": 9.400,
            "resp_max_ms": 209.282,
            "resp_stddev_ms": 21.505,
        },
        id="50401-totals",
    ),
    pytest.param(
        f"{V50401}timestamped_version_line_Windows_master__logfile.html",
        {
            "output_kind": "logfile",
            "vdbench_version": "vdbench50401",
            "vdbench_build_text": None,
            "column_layout": "50406",
            "run_count": 3,
            "interval_count": 180,
        },
        2,
        {
            "rd_name": "rd3",
            "started_tod": "13:51:04.001",
            "iops": 310.05,
            "mib_per_s": 1.21,
            "resp_ms": 6.439,
            "resp_max_ms": 217.978,
        },
        id="50401-logfile-timestamped-version",
    ),
    pytest.param(
        f"{OCEAN}38RDs_multihost_interval_lines__summary.html",
        {
            "output_kind": "summary",
            "column_layout": "50407",
            "has_cpu_columns": True,
            "run_count": 38,
            "interval_count": 2280,
        },
        0,
        {
            "rd_name": "ran_write_various",
            "io_rate_text": "Controlled MAX",
            "avg_label": "avg_2-60",
            "iops": 26487.8,
            "mib_per_s": 197.85,
            "bytes_per_io": 7832,
            "read_pct": 0.0,
            "resp_ms": 0.298,
            "read_max_ms": 0.0,
            "write_max_ms": 11.70,
            "resp_stddev_ms": 0.176,
            "queue_depth": 7.9,
            "cpu_sys_user_pct": 2.7,
            "cpu_sys_pct": 1.7,
            "resp_max_ms": None,
        },
        id="50407-summary-38rds",
    ),
    pytest.param(
        f"{OCEAN}38RDs_multihost_avg_2-60__totals.html",
        {"output_kind": "totals", "column_layout": "50407", "run_count": 38},
        1,
        {
            "rd_name": "ran_read_various",
            "iops": 15009.1,
            "mib_per_s": 111.23,
            "read_pct": 100.0,
            "resp_ms": 0.532,
            "read_max_ms": 10.61,
            "write_max_ms": 0.0,
        },
        id="50407-totals-38rds",
    ),
    pytest.param(
        f"{OCEAN}linux_quick_test_cpu_cols__summary.html",
        {
            "output_kind": "summary",
            "column_layout": "50407",
            "has_cpu_columns": True,
            "run_count": 1,
            "interval_count": 5,
        },
        0,
        {
            "rd_name": "rd1",
            "avg_label": "avg_2-5",
            "first_interval": 2,
            "last_interval": 5,
            "iops": 97.8,
            "mib_per_s": 0.10,
            "bytes_per_io": 1024,
            "read_pct": 53.45,
            "resp_ms": 0.008,
            "read_max_ms": 0.07,
            "write_max_ms": 0.03,
            "cpu_sys_user_pct": 2.1,
        },
        id="50407-summary-cpu",
    ),
    pytest.param(
        f"{OCEAN}linux_version_line__logfile.html",
        {
            "output_kind": "logfile",
            "vdbench_version": "vdbench50407",
            "run_count": 1,
            "interval_count": 5,
            "completed_successfully": True,
        },
        0,
        {"rd_name": "rd1", "iops": 97.8, "resp_ms": 0.008},
        id="50407-logfile",
    ),
    pytest.param(
        f"{TIGER}macOS_zh-locale_date_no_cpu_cols__summary.html",
        {
            "output_kind": "summary",
            "column_layout": "50407",
            "has_cpu_columns": False,
            "report_created_at": None,
            "run_count": 2,
            "interval_count": 6,
        },
        1,
        {
            "rd_name": "rd1",
            "is_format_run": False,
            "iops": 105.3,
            "mib_per_s": 0.10,
            "read_pct": 51.07,
            "resp_ms": 0.026,
            "read_max_ms": 0.06,
            "write_max_ms": 0.12,
            "queue_depth": 0.0,
            "cpu_sys_user_pct": None,
        },
        id="50407-summary-no-cpu-zh-date",
    ),
    pytest.param(
        f"{TIGER}macOS_no_cpu_cols__totals.html",
        {"output_kind": "totals", "has_cpu_columns": False, "run_count": 2},
        0,
        {
            "rd_name": "SD_format",
            "is_format_run": True,
            "elapsed_s": None,
            "for_loops": "threads=2 iorate=max",
            "avg_label": "avg_2-1",
            "iops": 0.0,
            "bytes_per_io": 0,
        },
        id="50407-totals-format-run",
    ),
    pytest.param(
        f"{TIGER}macOS__logfile.html",
        {
            "output_kind": "logfile",
            "vdbench_version": "vdbench50407",
            "run_count": 2,
            "interval_count": 6,
        },
        1,
        {"rd_name": "rd1", "iops": 105.3, "write_max_ms": 0.12},
        id="50407-logfile-macos",
    ),
    pytest.param(
        f"{V50401}fixed_width_old_columns__flatfile.html",
        {
            "output_kind": "flatfile",
            "column_layout": "flatfile",
            "run_count": 3,
            "interval_count": 180,
        },
        0,
        {
            "rd_name": "rd1",
            "avg_label": "avg_2-60",
            "iops": 50.0169,
            "mib_per_s": 0.1954,
            "resp_ms": 5.3952,
            "resp_max_ms": 96.066,
            "requested_iops": 50.0,
            "is_max_rate": False,
            "xfersize_bytes": 4096,
            "threads": 2,
            "requested_read_pct": 75.0,
            "lun_size_gib": 16.0,
            "compratio_requested": None,
            "cpu_sys_user_pct": 1.1605,
        },
        id="50401-flatfile",
    ),
    pytest.param(
        f"{V504XX}compratio1.5_dedupratio2_fixed_width__flatfile.html",
        {"output_kind": "flatfile", "run_count": 3, "interval_count": 120},
        0,
        {
            "rd_name": "rd1",
            "iops": 117.7458,
            "requested_iops": 25000.0,
            "compratio_requested": 1.5,
            "dedupratio_requested": 2.0,
        },
        id="504xx-flatfile-compratio",
    ),
    pytest.param(
        JFRITZEN,
        {"output_kind": "flatfile", "run_count": 8, "interval_count": 80},
        0,
        {
            "rd_name": "random_write_max_4k",
            "avg_label": "avg_2-10",
            "iops": 327.4444,
            "mib_per_s": 1.2791,
            "resp_ms": 23.9089,
            "resp_max_ms": 1514.975,
            "read_resp_ms": None,
            "requested_iops": 999988.0,
            "is_max_rate": True,
        },
        id="pre504-flatfile-ks-columns",
    ),
    pytest.param(
        f"{OCEAN}38RDs_cpu_cols__flatfile.html",
        {"output_kind": "flatfile", "run_count": 38, "interval_count": 2280},
        0,
        {
            "rd_name": "ran_write_various",
            "iops": 26487.7966,
            "mib_per_s": 197.8512,
            "resp_ms": 0.2983,
            "write_max_ms": 11.703,
            "write_stddev_ms": 0.1759,
            "requested_iops": 9999988.0,
            "is_max_rate": True,
            "xfersize_bytes": 512,
            "lun_size_gib": 200.0,
            "cpu_sys_user_pct": 2.6512,
            "cpu_sys_pct": 1.6505,
        },
        id="50407-flatfile",
    ),
    pytest.param(
        f"{TIGER}space_separated_read_max_write_max__flatfile.html",
        {"output_kind": "flatfile", "run_count": 2, "interval_count": 6},
        1,
        {
            "rd_name": "rd1",
            "avg_label": "avg_2-5",
            "iops": 105.25,
            "mib_per_s": 0.1028,
            "read_max_ms": 0.063,
            "write_max_ms": 0.123,
            "requested_iops": 100.0,
            "compratio_requested": 1.0,
            "dedupratio_requested": None,
            "cpu_sys_user_pct": None,
        },
        id="50407-flatfile-macos",
    ),
]


def _parse(path: Path, hcibench_case: str | None = None):
    return parse_file(vdbench, path, hcibench_case=hcibench_case)


def test_every_sample_is_classified(samples: Path) -> None:
    # GIVEN the real sample folder WHEN listing it THEN each file is in REAL or NOT_CLAIMED
    listed = {p.values[0] for p in REAL} | NOT_CLAIMED
    assert {p.name for p in (samples / "vdbench").iterdir()} == listed


@pytest.mark.parametrize(("name", "output", "run_index", "run"), REAL)
def test_real_samples(name: str, output: dict, run_index: int, run: dict) -> None:
    data = (VDB / name).read_bytes()
    assert vdbench.detect(data[:65536], name)
    assert detect_format(data[:65536], name) == "vdbench"
    parsed = _parse(VDB / name)
    (out,) = parsed.tables["vdbench_outputs"]
    assert_fields(out, output)
    runs = parsed.tables["vdbench_runs"]
    assert [r.run_index for r in runs] == list(range(len(runs)))
    assert_fields(runs[run_index], run)
    for table, rows in parsed.tables.items():  # the rows fit their declared schema
        assert to_arrow(vdbench.TABLES[table], rows).num_rows == len(rows)


@pytest.mark.parametrize("name", sorted(NOT_CLAIMED))
def test_not_claimed(name: str) -> None:
    data = (VDB / name).read_bytes()
    assert not vdbench.detect(data[:65536], name)


def test_avg_2_60_of_50407_summary() -> None:
    # The reference values: 26487.8 IO/s, 197.85 MiB/s, resp 0.298 ms.
    parsed = _parse(VDB / f"{OCEAN}38RDs_multihost_interval_lines__summary.html")
    first = parsed.tables["vdbench_runs"][0]
    assert (first.avg_label, first.iops, first.mib_per_s, first.resp_ms) == (
        "avg_2-60",
        26487.8,
        197.85,
        0.298,
    )
    assert first.state is RunState.ok
    assert parsed.tables["vdbench_outputs"][0].report_created_at.isoformat() == (
        "2019-10-09T07:39:59+00:00"
    )


def test_interval_rows_and_header_repeat() -> None:
    # The 50401 summary repeats its header before interval 31; interval 7 holds rd1's max.
    parsed = _parse(VDB / f"{V50401}raw_2hosts_3RDs_avg_2-60_old_layout_cpu_cols__summary.html")
    rd1 = [i for i in parsed.tables["vdbench_intervals"] if i.run_index == 0]
    assert [i.interval_index for i in rd1] == list(range(1, 61))
    seventh = rd1[6]
    assert (seventh.tod, seventh.iops, seventh.resp_max_ms) == ("13:49:07.121", 46.0, 96.066)
    assert seventh.tod_ms == ((13 * 60 + 49) * 60 + 7) * 1000 + 121


def test_logfile_prints_start_twice_counts_once() -> None:
    parsed = _parse(VDB / f"{V50401}timestamped_version_line_Windows_master__logfile.html")
    assert [r.rd_name for r in parsed.tables["vdbench_runs"]] == ["rd1", "rd2", "rd3"]


# ---------------------------------------------------------------------------------------------
# fixtures written from the Vdbench source formats


def test_glued_avg_label_50406() -> None:
    # `16:35:41.968avg_11-100` (warmup=10, elapsed=90, interval=1): label fills %10s.
    parsed = _parse(FIXTURE_DIR / "valid" / "stdout_50406_glued_avg_label.txt")
    (out,) = parsed.tables["vdbench_outputs"]
    assert (out.output_kind, out.vdbench_version, out.column_layout, out.has_cpu_columns) == (
        "stdout",
        "vdbench50406",
        "50406",
        True,
    )
    assert out.vdbench_build_text == "Wed July 20 15:49:52 MDT 2016"
    (run,) = parsed.tables["vdbench_runs"]
    assert_fields(
        run,
        {
            "rd_name": "rd1",
            "elapsed_s": 90,
            "warmup_s": 10,
            "avg_label": "avg_11-100",
            "first_interval": 11,
            "last_interval": 100,
            "ended_tod": "16:35:41.968",
            "interval_count": 100,
            "iops": 2158.52,
            "mib_per_s": 16.86,
            "bytes_per_io": 8192,
            "read_pct": 69.95,
            "resp_ms": 0.657,
            "read_resp_ms": 0.444,
            "write_resp_ms": 1.153,
            "resp_max_ms": 20.277,
            "resp_stddev_ms": 0.603,
            "queue_depth": 1.4,
            "cpu_sys_user_pct": 11.2,
            "cpu_sys_pct": 3.9,
        },
    )
    assert len(parsed.tables["vdbench_intervals"]) == 100


def test_for_loops_make_separate_runs_without_cpu() -> None:
    parsed = _parse(FIXTURE_DIR / "valid" / "stdout_50407_forloops_no_cpu.txt")
    runs = parsed.tables["vdbench_runs"]
    assert [(r.rd_name, r.for_loops, r.iops, r.read_max_ms, r.write_max_ms) for r in runs] == [
        ("rd1", "threads=2", 1200.0, 2.50, 4.10),
        ("rd1", "threads=4", 2000.0, 5.30, 8.20),
    ]
    assert all(r.cpu_sys_user_pct is None and r.queue_depth is not None for r in runs)
    assert [i.run_index for i in parsed.tables["vdbench_intervals"]] == [0, 0, 0, 1, 1, 1]


def test_output_cut_mid_line_keeps_earlier_lines() -> None:
    parsed = _parse(FIXTURE_DIR / "valid" / "stdout_50407_cut_mid_line.txt")
    (run,) = parsed.tables["vdbench_runs"]
    assert run.state is RunState.unfinished and run.iops is None
    assert [i.interval_index for i in parsed.tables["vdbench_intervals"]] == [1]
    assert "line 8: dropped the last line, cut short" in parsed.notes
    assert parsed.tables["vdbench_outputs"][0].completed_successfully is False


HCIB_VDB_CASE = (
    HCIB_RESULTS / "hcib28" / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
)


@pytest.mark.parametrize(
    ("vm", "state", "iops", "intervals"),
    [
        pytest.param(1, RunState.ok, 2467.2, 30, id="vm1"),
        pytest.param(2, RunState.unfinished, None, 15, id="vm2-unfinished"),
        pytest.param(3, RunState.ok, 2581.6, 30, id="vm3"),
    ],
)
def test_hcibench_worker_stdout(
    vm: int, state: RunState, iops: float | None, intervals: int
) -> None:
    path = HCIB_VDB_CASE / f"hci-vdb-datastore-2004-0-{vm}.txt"
    parsed = _parse(path, hcibench_case=HCIB_VDB_CASE.as_posix())
    (out,) = parsed.tables["vdbench_outputs"]
    assert (out.case_name, out.vm_name) == (HCIB_VDB_CASE.name, f"hci-vdb-datastore-2004-0-{vm}")
    (run,) = parsed.tables["vdbench_runs"]
    assert (run.state, run.iops, run.interval_count) == (state, iops, intervals)
    assert (
        run.rd_text == "RD=run1; I/O rate: Uncontrolled MAX; elapsed=20 warmup=10; For loops: None"
    )


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("name", "location", "reason"),
    cases(
        ("layout-change", "layout_change.txt", "line 11", "column layout changed"),
        ("non-numeric-avg", "nonnumeric_avg.txt", "line 9", "malformed Vdbench totals line"),
        (
            "interval-before-rd",
            "interval_before_rd.txt",
            "line 5",
            "before any 'Starting RD=' line",
        ),
        (
            "version-mismatch",
            "version_mismatch.txt",
            "line 7",
            "vdbench50407 prints the 50407 column layout",
        ),
        ("short-line-with-newline", "truncated_interval.txt", "line 8", "found 9"),
        ("flatfile-short-row", "flatfile_short_row.html", "line 49", "expected 34 columns"),
    ),
)
def test_invalid(name: str, location: str, reason: str) -> None:
    assert_rejected(vdbench, FIXTURE_DIR / "invalid" / name, location, reason)


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
    # THEN exactly the Vdbench run outputs are claimed
    assert claimed == {f"vdbench/{p.values[0]}" for p in REAL}


GOLDEN = sorted((FIXTURE_DIR / "valid").glob("*.expected.json"))


@pytest.mark.parametrize("expected_path", GOLDEN, ids=[p.name.split(".")[0] for p in GOLDEN])
def test_golden(expected_path: Path) -> None:
    # <case>.<ext> beside <case>.expected.json: each listed row's fields, and the row counts.
    expected = json.loads(expected_path.read_text())
    (data_path,) = [
        p
        for p in expected_path.parent.glob(expected_path.name.split(".")[0] + ".*")
        if not p.name.endswith(".expected.json")
    ]
    parsed = _parse(data_path)
    for table, rows in expected["rows"].items():
        for index, fields in rows.items():
            assert_fields(parsed.tables[table][int(index)], fields)
    assert {t: len(r) for t, r in parsed.tables.items()} == expected["row_counts"]
    assert parsed.notes == expected.get("notes", [])


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
