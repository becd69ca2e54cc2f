"""Vdbench load generators: the hosts and slave JVMs a report shows (`vm_count` in dbt).

A hand-run multi-host Vdbench writes one summary.html for all hosts; counting files would give
1. The counts are checked against the sample parameter files of the same runs, whose `hd=`
lines declare the hosts (the `hd=default` line sets defaults, it is no host). The counts of
every other output (logfile slaves, a VM's stdout, reports that do not say) are in the golden
files (tests/ingest/golden/vdbench).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ingest.parsers import vdbench
from tests.conftest import HCIB28_VDB_STDOUT, SAMPLES
from tests.ingest.conftest import cases, parse_bytes, parse_file

VDB = SAMPLES / "vdbench"
V50401 = "TheOtherOtherOperation_vdbconvert__vdbench50401_"
OCEAN = "masakioui_vdb_oceanstor__vdbench50407_"
HCIB_STDOUT = HCIB28_VDB_STDOUT


def declared_hosts(parmfile: str) -> int:
    """`hd=<name>` lines of a parameter file, `hd=default` and comments left out."""
    text = (VDB / parmfile).read_text()
    return len(re.findall(r"^hd=(?!default\b)\w+", text, re.MULTILINE))


def output_of(path: Path):
    return parse_file(vdbench, path).tables["vdbench_outputs"][0]


@pytest.mark.parametrize(
    ("report", "parmfile"),
    cases(
        (
            "50401 summary, 2 hosts",
            f"{V50401}raw_2hosts_3RDs_avg_2-60_old_layout_cpu_cols__summary.html",
            f"{V50401}raw_sd_51wds_3rds__parmfile.html",
        ),
        (
            "50407 summary, 44 hosts",
            f"{OCEAN}38RDs_multihost_interval_lines__summary.html",
            f"{OCEAN}44hosts_raw_sd_38rds__parmfile.html",
        ),
    ),
)
def test_summary_counts_the_host_reports(report: str, parmfile: str) -> None:
    output = output_of(VDB / report)
    assert declared_hosts(parmfile) in (2, 44)
    assert output.host_count == declared_hosts(parmfile)
    assert output.slave_count is None  # summary.html names no slaves


def test_two_slaves_on_one_host_are_one_host() -> None:
    """`jvms=2` on hd1 plus hd2: three slaves on two hosts."""
    text = HCIB_STDOUT.read_text()
    line = next(x for x in text.splitlines() if "Starting slave:" in x)
    extra = [line.replace("-l localhost-0", f"-l {name}") for name in ("hd1-0", "hd1-1", "hd2-0")]
    data = text.replace(line, "\n".join(extra)).replace("Slave localhost-0", "Slave hd1-0")
    output = parse_bytes(vdbench, data.encode(), "/drop/run.txt").tables["vdbench_outputs"][0]
    assert (output.host_count, output.slave_count) == (2, 3)
