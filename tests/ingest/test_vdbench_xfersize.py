"""A Vdbench run's block size is its configured xfersize, never its mean bytes per I/O (issue 27).

Vdbench's `bytes/io` (file-system runs: `xfer size`) is what the I/Os moved on average: 7,832 for
the 38-RD run's `xfersize=(512,4,1k,1,...,4k,67,8k,10,...)` and 4,093 for a file-system run
asked for `xfersize=4k`. It stays `bytes_per_io`; `xfersize_bytes` holds the configured size when
the output holds it (the raw flatfile's `xfersize` column when the run moved exactly that, a
`For loops: xfersize=` run line, parameter lines in the same text) and is NULL with
`xfersize_unknown_reason` otherwise. Inputs are real Vdbench outputs (samples and fixtures).
"""

from __future__ import annotations

from ingest.parsers import vdbench
from ingest.parsers.vdbench import XfersizeSource
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import parse_bytes, parse_file

VDB = SAMPLES / "vdbench"
OCEAN = "masakioui_vdb_oceanstor__vdbench50407_"
FLATFILE_38 = VDB / f"{OCEAN}38RDs_cpu_cols__flatfile.html"
SUMMARY_38 = VDB / f"{OCEAN}38RDs_multihost_interval_lines__summary.html"
PARMFILE_38 = VDB / f"{OCEAN}44hosts_raw_sd_38rds__parmfile.html"
VALID = FIXTURES / "vdbench" / "valid"


def runs_by_name(parsed) -> dict:
    return {run.rd_name: run for run in parsed.tables["vdbench_runs"]}


def test_flatfile_xfersize_of_a_distribution_is_no_block_size():
    runs = runs_by_name(parse_file(vdbench, FLATFILE_38))
    # `xfersize=(512,4,...)`: the flatfile prints 512, the I/Os moved 7,832 bytes each on average
    various = runs["ran_write_various"]
    assert various.bytes_per_io == 7832
    assert various.xfersize_bytes is None
    assert "512" in various.xfersize_unknown_reason
    assert "7,832" in various.xfersize_unknown_reason
    # a fixed size is what every I/O moved: the column is the configured size
    fixed = runs["ran_write_8k"]
    assert (fixed.xfersize_bytes, fixed.bytes_per_io) == (8192, 8192)
    assert fixed.xfersize_source == XfersizeSource.flatfile


def test_report_without_the_configured_size_keeps_bytes_per_io_and_says_why():
    runs = runs_by_name(parse_file(vdbench, SUMMARY_38))
    various = runs["ran_write_various"]
    assert (various.bytes_per_io, various.xfersize_bytes) == (7832, None)
    assert various.xfersize_unknown_reason == (
        "the output does not print the configured xfersize (bytes_per_io 7,832 is the mean the "
        "I/Os moved, not a size)"
    )


def test_parameter_lines_in_the_same_text_give_the_configured_size():
    # GIVEN a console log holding the parameter file and then the run's report
    text = PARMFILE_38.read_bytes() + b"\n" + SUMMARY_38.read_bytes()
    runs = runs_by_name(parse_bytes(vdbench, text, "/logs/console.txt"))
    # THEN each run takes its wd's xfersize=, and a distribution gives none
    assert runs["ran_write_8k"].xfersize_bytes == 8192
    assert runs["ran_write_8k"].xfersize_source == XfersizeSource.parameter_file
    assert runs["seq_read_2m"].xfersize_bytes == 2 * 1024**2
    assert runs["ran_write_various"].xfersize_bytes is None
    assert "is a distribution of sizes" in runs["ran_write_various"].xfersize_unknown_reason


def test_file_system_run_block_size_is_the_fwd_xfersize_not_the_mean():
    text = (VALID / "fs_50407_read_4k_avg_2-60__parmfile.html").read_bytes() + (
        VALID / "fs_50407_read_4k_avg_2-60__summary.html"
    ).read_bytes()
    (run,) = parse_bytes(vdbench, text, "/logs/console.txt").tables["vdbench_runs"]
    assert (run.bytes_per_io, run.xfersize_bytes) == (4093, 4096)
    # without the parameter file the report holds only the mean
    (alone,) = parse_file(vdbench, VALID / "fs_50407_read_4k_avg_2-60__summary.html").tables[
        "vdbench_runs"
    ]
    assert (alone.bytes_per_io, alone.xfersize_bytes) == (4093, None)
    assert "4,093 is the mean the I/Os moved" in alone.xfersize_unknown_reason


def test_for_loops_xfersize_on_the_run_line_is_the_configured_size():
    # a real stdout whose run line names a forxfersize= loop value (Vdbench's For_loop text)
    text = (VALID / "stdout_50407_forloops_no_cpu.txt").read_text()
    text = text.replace("For loops: threads=2", "For loops: xfersize=1.500k threads=2")
    runs = parse_bytes(vdbench, text.encode(), "/logs/vm.txt").tables["vdbench_runs"]
    first = runs[0]
    assert (first.for_loops, first.xfersize_bytes) == ("xfersize=1.500k threads=2", 1536)
    assert first.xfersize_source == XfersizeSource.for_loops
