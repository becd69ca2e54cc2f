"""What the pages show, worked out from literal mart rows (app/lib/views): the pure half of
each page, without Streamlit or a warehouse."""

from __future__ import annotations

import datetime as dt

import polars as pl

from app.lib import provenance
from app.lib.views import data_quality, run_explorer


def test_data_quality_counts_constraints_alerts_and_skipped_suites() -> None:
    # GIVEN a run: one constraint and one alert failed (severity in either spelling, or none),
    # one passed, one suite skipped (its table does not exist yet: success NULL)
    run_at = dt.datetime(2026, 11, 23, 21, 5, tzinfo=dt.UTC)
    latest = pl.DataFrame(
        {
            "suite": ["a.constraints", "a.alerts", "b.constraints", "c.constraints", "d"],
            "severity": ["Constraints", "alert", "constraint", "constraint", None],
            "success": [False, False, True, None, False],
            "run_at": [run_at] * 5,
        }
    )
    run = data_quality.summary(latest)
    # THEN a failure without a severity counts as a constraint
    assert (run.constraints, run.alerts, run.checked, run.skipped) == (2, 1, 4, 1)
    assert run.failed["suite"].to_list() == ["a.constraints", "a.alerts", "d"]
    assert run.run_at == run_at


# --- Run explorer ----------------------------------------------------------------------------


def test_run_explorer_says_why_a_section_is_empty_by_the_results_tool() -> None:
    fio = run_explorer.section_texts({"source_tool": "fio", "cpu_util_source": "capture"})
    assert fio == run_explorer.SECTIONS
    vdbench = run_explorer.section_texts(
        {"source_tool": "vdbench", "cpu_util_source": "hcibench_resource_usage"}
    )
    assert vdbench["histogram"] == (
        "Latency histogram (fio json+)",
        "Vdbench reports no latency histogram (only fio's json+ output does).",
    )
    assert "HCIBench's resource-usage figure" in vdbench["host_cpu"][1]
    assert vdbench["percentiles"] == run_explorer.SECTIONS["percentiles"]
    # the module's own texts are never changed by a page run
    assert run_explorer.SECTIONS["histogram"][1].startswith("No json+ latency buckets")


def test_run_explorer_steady_state_texts() -> None:
    state = {
        "is_steady_state": True, "steady_state_start_s": 20.0, "steady_state_end_s": 300.0,
        "ci_window_start_s": 20.0, "ci_window_end_s": 1300.0, "ci_window_interval_count": 28,
        "ci_method": "batch_means", "iops_ci95_low": 1234.5, "iops_ci95_high": 1300.25,
        "avg_latency_ms_ci95_low": None, "avg_latency_ms_ci95_high": None,
    }  # fmt: skip
    assert run_explorer.steady_window(state) == (20.0, 300.0)
    assert run_explorer.steady_window({**state, "is_steady_state": False}) is None
    assert run_explorer.steady_window_text(state) == "20 to 1,300 s"
    assert run_explorer.steady_window_text({**state, "ci_window_end_s": None}) == "20 to — s"
    assert run_explorer.steady_window_help(state) == "28 intervals; method: batch_means"
    assert run_explorer.ci_text(state, "iops", ",.0f") == "95 % CI 1,234 to 1,300"
    assert run_explorer.ci_text(state, "avg_latency_ms", ".3f") == "no spread information"


def test_run_explorer_headline_help_and_spread_source() -> None:
    assert run_explorer.cpu_source_help({"cpu_util_source": "capture"}).startswith(
        "Source: esxtop / vSAN host samples"
    )
    assert run_explorer.cpu_source_help({"cpu_util_source": None}) == (
        "Source: none (no host CPU figure)"
    )
    assert run_explorer.spread_help({"host_iops_source": None}).endswith("source: —")


def test_run_explorer_cpu_caption_only_for_averaged_points() -> None:
    averaged = pl.DataFrame({"samples_in_point": [3, 4]})
    assert run_explorer.cpu_caption(averaged) == (
        "Averaged to at most 2,000 points per host (7 samples in the window)."
    )
    assert run_explorer.cpu_caption(pl.DataFrame({"samples_in_point": [1, 1]})) is None


def test_run_explorer_lists_every_column_and_the_marts_without_a_section() -> None:
    results = pl.DataFrame({"result_id": ["r1"], "iops": [None], "labels_json": ["{}"]})
    table = run_explorer.every_column(results, results.row(0, named=True))
    assert table.to_dicts() == [
        {"field": "result_id", "value": "r1"},
        {"field": "iops", "value": "—"},
    ]
    tables = {
        "fct_workload_results": ["result_id"],
        "fct_result_outputs": ["result_id", "iops"],
        "fct_new_detail": ["result_id", "x"],
        "dim_hosts": ["host_id"],
        "a_detail": ["result_id"],
    }
    assert run_explorer.other_marts(tables) == ("a_detail", "fct_new_detail")


def test_run_explorer_orders_source_files_outputs_first() -> None:
    files = pl.DataFrame(
        {
            "file_role": ["test case", "labels", "output", "output", "other"],
            "source_path": ["c/x", "b/run.yaml", "z/vm2.json", "a/vm1.json", "d"],
            "source_format": ["hcibench", "run_yaml", "fio", "fio", "x"],
            "tool_version": [None, None, "fio-3.33", "fio-3.33", None],
            "parser_version": ["1", "1", "4", "4", "1"],
        }
    )
    ordered = provenance.files_in_order(files)
    assert ordered is not None
    assert ordered["source_path"].to_list() == [
        "a/vm1.json",
        "z/vm2.json",
        "b/run.yaml",
        "c/x",
        "d",
    ]
    assert provenance.tools_line(ordered) == (
        "**Tool** fio fio-3.33, parser version 4; run_yaml (version not printed), parser "
        "version 1; x (version not printed), parser version 1 · 5 files"
    )
    assert provenance.files_in_order(None) is None
