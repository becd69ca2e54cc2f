"""The run explorer says which host captures a result's host CPU comes from, and which captures
recording during its run were left out and why (issue 27, "Host samples never cross labels").

The rows are those of `fct_result_captures` for the case tests/dbt/test_overlapping_captures.py
builds: the RDMA run's own captures attached, the TCP run's captures (still recording while the
RDMA run ran) left out. The drawing is checked on them with AppTest; the page itself on the
real warehouse, whose reference captures are labelled per run and all attached.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib import provenance
from app.lib.views import run_explorer
from tests.app.conftest import query
from tests.app.test_provenance_pages import open_page

REASON = "transport: tcp (capture) vs rdma (result)"
END = dt.datetime(2024, 1, 15, 14, 50, tzinfo=dt.UTC)


def overlapping_captures() -> pl.DataFrame:
    """fct_result_captures rows of the RDMA result, in the mart's (arbitrary) row order."""
    hosts = ["esx-r750-01.lab.local", "esx-r750-02.lab.local"] * 2
    folders = ["randread-4k-tcp", "randread-4k-tcp", "randread-4k-rdma", "randread-4k-rdma"]
    return pl.DataFrame(
        {
            "result_id": ["rdma"] * 4,
            "source_file_id": [11, 12, 21, 22],
            "source_path": [
                f"/data/{folder}/esxtop-{host.split('.')[0]}.csv"
                for folder, host in zip(folders, hosts, strict=True)
            ],
            "source_tool": ["esxtop"] * 4,
            "host_names": hosts,
            "is_attached": [False, False, True, True],
            "left_out_reason": [REASON, REASON, None, None],
            "first_sampled_at": [END - dt.timedelta(minutes=10, seconds=55)] * 2
            + [END - dt.timedelta(minutes=1)] * 2,
            "last_sampled_at": [END] * 4,
            "window_sample_count": [13] * 4,
        }
    )


def test_captures_are_listed_attached_first_with_why_the_others_were_left_out() -> None:
    shown, summary = run_explorer.captures_section(overlapping_captures()) or (None, "")
    assert shown is not None
    assert shown.columns == run_explorer.CAPTURE_COLUMNS
    assert shown.select("status", "source_path", "left_out_reason").rows() == [
        ("attached", "/data/randread-4k-rdma/esxtop-esx-r750-01.csv", None),
        ("attached", "/data/randread-4k-rdma/esxtop-esx-r750-02.csv", None),
        ("left out", "/data/randread-4k-tcp/esxtop-esx-r750-01.csv", REASON),
        ("left out", "/data/randread-4k-tcp/esxtop-esx-r750-02.csv", REASON),
    ]
    assert summary == (
        "2 of 4 captures with samples in this run's window are attached: their samples count "
        f"for this result's host CPU and per-host figures. 2 left out: their labels contradict "
        f"this result's ({REASON})."
    )
    assert run_explorer.captures_section(None) is None
    assert run_explorer.captures_section(overlapping_captures().clear()) is None


def test_a_result_whose_captures_were_all_left_out_says_so_under_host_cpu() -> None:
    row = {"source_tool": "fio", "cpu_util_source": None}
    tcp_only = overlapping_captures().filter(~pl.col("is_attached"))
    caption = run_explorer.section_texts(row, tcp_only)["host_cpu"][1]
    assert caption.startswith("Host captures recorded during this run, but every one was left")
    _, summary = run_explorer.captures_section(tcp_only) or (None, "")
    assert summary.startswith("None of the 2 captures with samples in this run's window")
    # captures attached, or none at all: the usual caption
    usual = run_explorer.SECTIONS["host_cpu"]
    assert run_explorer.section_texts(row, overlapping_captures())["host_cpu"] == usual
    assert run_explorer.section_texts(row, None)["host_cpu"] == usual


def _draw_captures() -> None:
    # AppTest runs this function's body as a script: everything it uses is imported here
    from app.lib import provenance
    from app.lib.views import run_explorer
    from tests.app.test_run_explorer_captures import overlapping_captures

    provenance.show_captures(run_explorer.captures_section(overlapping_captures()))


def test_the_section_draws_attached_and_left_out_captures_with_the_reason() -> None:
    at = AppTest.from_function(_draw_captures, default_timeout=30)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader] == ["Host captures in the run window"]
    assert REASON in at.caption[0].value
    (table,) = at.dataframe
    assert table.value["status"].tolist() == ["attached", "attached", "left out", "left out"]
    assert table.value["left_out_reason"].tolist()[2:] == [REASON, REASON]


@pytest.mark.slow
def test_run_explorer_lists_the_captures_of_a_reference_result(warehouse_env: Path) -> None:
    # GIVEN the Samsung RDMA 4K random read: one esxtop capture per host in its run folder,
    # labelled like the run
    result_id, paths = query(
        warehouse_env,
        "select c.result_id, list(c.source_path order by c.source_path)"
        " from marts.fct_result_captures c join marts.fct_workload_results r using (result_id)"
        " where r.testbed = 'samsung-pm1743-vsan8-esa' and r.transport = 'rdma'"
        " and r.read_pct = 100 and r.block_size_bytes = 4096 group by all",
    )[0]
    assert len(paths) == 3
    # WHEN the run explorer opens it
    at = open_page("app_pages/run_explorer.py", {"result_id": result_id})
    # THEN its three captures are listed as attached, none left out
    assert "Host captures in the run window" in [s.value for s in at.subheader]
    assert any(
        c.value.startswith("3 of 3 captures with samples in this run's window are attached")
        for c in at.caption
    )
    table = next(f.value for f in at.dataframe if "left_out_reason" in f.value.columns)
    # paths relative to the parent of the folder they share, the full ones on demand
    folder = os.path.commonpath([os.path.dirname(p) for p in paths])
    assert table["path"].tolist() == [os.path.relpath(p, os.path.dirname(folder)) for p in paths]
    full = [e for e in at.expander if e.label == provenance.FULL_PATHS][-1]
    assert full.text[0].value.splitlines() == paths
    assert set(table["status"]) == {"attached"}
