"""Capacity and Published vs measured: one mark per capacity observation (a capture loaded as
JSON and as XML is one), every capacity in TB and TiB from the mart's columns of each unit,
and the published-against-measured chart, one mark per figure coloured by status.

Pure tests on literal rows (the Micron RA's Figure 16 capture: 31,424,042,321,838 bytes
logical, 3,826,300,464,660 physical = 28.58 / 3.48 TiB, vSphere's "TB"), then the pages on the
real warehouse, whose shown values must equal the marts'.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from app.lib import charts
from app.lib.charts.capacity import UNITS_NOTE, capacity_bars, observation_labels
from app.lib.charts.published import STATUS_COLORS, published_ratio_chart, ratio_points
from app.lib.views import capacity, published
from tests.app import figures
from tests.app.conftest import query
from tests.app.test_pages import headline_metrics, open_page

LOGICAL, PHYSICAL = 31_424_042_321_838, 3_826_300_464_660
TIB = 2**40


def ratios(**overrides: list) -> pl.DataFrame:
    """dedupe_ratios rows as the mart gives them: two dated Micron observations, and the two
    unlabelled pyvmomi sample captures (each one observation of a JSON and an XML file)."""
    rows = {
        "capacity_observation_id": [843, 742, 2050, 2052],
        "testbed": ["micron", "micron", None, "(no testbed label)"],
        "profile": ["density", "density", None, None],
        "working_set": ["capacity", "cache", None, None],
        "nodes": [4, 4, None, None],
        "captured_at": [dt.datetime(2018, 6, 9, 12), dt.datetime(2018, 6, 4, 18), None, None],
        "logical_used_bytes": [LOGICAL, 9_785_653_487_206, 32_985_348_833_280, LOGICAL],
        "physical_used_bytes": [PHYSICAL, PHYSICAL, 21_990_232_555_520, PHYSICAL],
        "source_file_count": [1, 1, 2, 2],
        **overrides,
    }
    df = pl.DataFrame(rows)
    return df.with_columns(
        logical_used_tb=pl.col("logical_used_bytes") / 1e12,
        logical_used_tib=pl.col("logical_used_bytes") / TIB,
        physical_used_tb=pl.col("physical_used_bytes") / 1e12,
        physical_used_tib=pl.col("physical_used_bytes") / TIB,
    )


def test_capacity_chart_draws_one_bar_pair_per_labelled_observation() -> None:
    points, notes = capacity.drawn(ratios())
    assert points["capacity_observation_id"].to_list() == [843, 742]
    assert notes == ("2 observations without a testbed label not drawn",)
    fig = capacity_bars(points, notes=notes)
    # what differs (the working set) and the time; testbed and profile are in the subtitle
    labels = ["capacity · 2018-06-09 12:00", "cache · 2018-06-04 18:00"]
    assert fig.layout.xaxis.title.text == "Observation (working set · captured at, UTC)"
    # labels are categories: one that is a time alone is never read as a date axis
    assert fig.layout.xaxis.type == "category"
    for trace in fig.data:
        assert list(trace.x) == labels  # one x per observation: never a stack of several
    logical, physical = fig.data
    assert [round(v, 2) for v in logical.y] == [31.42, 9.79]
    assert [round(v, 2) for v in logical.customdata] == [28.58, 8.9]
    assert [round(v, 2) for v in physical.y] == [3.83, 3.83]
    assert [round(v, 2) for v in physical.customdata] == [3.48, 3.48]
    assert "TiB" in logical.hovertemplate and "TB" in logical.hovertemplate
    assert fig.layout.yaxis.title.text == "Capacity used (TB, 10^12 bytes)"
    assert fig.layout.title.subtitle.text == (
        f"testbed micron · 4 nodes · density profile · {UNITS_NOTE} · varies: working set"
        "<br>2 observations without a testbed label not drawn"
    )


def test_observations_sharing_a_label_keep_one_bar_each() -> None:
    twins = ratios(captured_at=[None, None, None, None], working_set=[None] * 4)
    points, notes = capacity.drawn(twins)
    assert observation_labels(points) == ["time unknown · #843", "time unknown · #742"]
    unsized = ratios(physical_used_bytes=[None, PHYSICAL, None, None])
    points, notes = capacity.drawn(unsized)
    assert points["capacity_observation_id"].to_list() == [742]
    assert notes == (
        "2 observations without a testbed label not drawn",
        "1 observation without used bytes not drawn",
    )
    assert capacity.merged_captures(ratios()) == 2
    files = pl.DataFrame({"source_file_ids": [[2050, 2051]], "source_kinds": [["json", "xml"]]})
    assert capacity.as_text_lists(files).row(0) == ("2050, 2051", "json, xml")


def test_capacity_headline_in_tb_and_tib() -> None:
    row = ratios().row(0, named=True) | {
        "ftm": "RAID-5", "ftt": 1, "dedupe_compression_ratio": LOGICAL / PHYSICAL,
        "capacity_multiplier": 1.33, "usable_to_raw_ratio": LOGICAL / PHYSICAL / 1.33,
        "saved_tb": (LOGICAL - PHYSICAL) / 1e12, "saved_tib": (LOGICAL - PHYSICAL) / TIB,
    }  # fmt: skip
    assert capacity.headline(row)[3] == (
        "Saved, TB / TiB",
        "27.60 / 25.10",
        "logical 31.42 TB = 28.58 TiB, physical 3.83 TB = 3.48 TiB "
        "(TB = 10^12 bytes, TiB = 2^40 bytes)",
    )
    unknown = {**row, "saved_tb": None, "saved_tib": None}
    assert capacity.headline(unknown)[3][1] == "—"
    assert capacity.both_units(27.5977, 25.1) == "27.60 TB = 25.10 TiB"


def figure_rows() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "figure_id": ["before", "iops", "lat", "gone", "zero"],
            "metric": [
                "capacity_used_before_tb",
                "iops",
                "avg_latency_ms",
                "iops",
                "iops_delta_pct",
            ],
            "unit": ["TB", "IOPS", "ms", "IOPS", "%"],
            "unit_meaning": ["TB as printed by vSphere = TiB (2^40 bytes)", None, None, None, None],
            "value_as_printed": ["28.58TB", "121K", "4.23ms", "1,000", "0%"],
            "published_value": [28.58, 121_000.0, 4.23, 1000.0, 0.0],
            "measured_value": [28.58, 120_600.0, 4.3, None, 1.0],
            "difference": [1e-12, -400.0, 0.0700000000001, None, 1.0],
            "tolerance": [0.005, 500.0, 0.005, 0.5, 0.5],
            "qualifier": ["exact", "exact", "more_than", "exact", "exact"],
            "status": ["match", "match", "mismatch", "unmatched", "mismatch"],
            "testbed": ["micron"] * 5,
            "published_tb": [31.424, None, None, None, None],
            "published_tib": [28.58, None, None, None, None],
            "measured_tb": [31.424, None, None, None, None],
            "measured_tib": [28.58, None, None, None, None],
            "result_id": [None, "r1", "r1", None, None],
        }
    )


def test_published_chart_one_marker_per_figure_coloured_by_status() -> None:
    points, left_out = published.chart_points(figure_rows())
    assert points["figure_id"].to_list() == ["before", "iops", "lat"]
    assert left_out == 2  # no measured value (gone), a published 0 (zero)
    fig = published_ratio_chart(points, left_out=left_out)
    by_status = {t.name: t for t in fig.data}
    assert list(by_status) == ["match", "mismatch"]
    assert list(by_status["match"].y) == ["before", "iops"]
    assert [round(x, 4) for x in by_status["match"].x] == [1.0, 0.9967]
    assert by_status["mismatch"].marker.color == STATUS_COLORS["mismatch"]
    # the whisker is the tolerance: 121K +/- 500 -> 0.9959 .. 1.0041 around the ratio
    iops = by_status["match"].error_x
    assert round(0.9967 - iops.arrayminus[1], 4) == round(120_500 / 121_000, 4)
    # "more than 4.23 ms" holds on one side: no band around it
    assert list(by_status["mismatch"].error_x.array) == [0.0]
    assert list(by_status["mismatch"].error_x.arrayminus) == [0.0]
    assert list(fig.layout.yaxis.categoryarray) == ["before", "iops", "lat"]  # the rows' order
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.title.subtitle.text == (
        "testbed micron · 3 figures · 2 figures without a measured value not drawn"
    )
    assert ratio_points(figure_rows().head(0)).is_empty()


def test_published_table_puts_the_comparison_first_and_states_the_unit() -> None:
    shown = published.table(figure_rows())
    assert shown.columns[:7] == [
        "figure_id", "metric", "unit", "published_value", "measured_value", "difference", "status",
    ]  # fmt: skip
    assert shown["unit"].to_list()[:2] == ["TB as printed by vSphere = TiB (2^40 bytes)", "IOPS"]
    assert shown["difference"].to_list()[:3] == [0.0, -400.0, 0.07]  # no float noise
    points, _ = published.chart_points(figure_rows())
    csv = published.points_table(points)
    assert csv["ratio"].to_list()[0] == 1.0 and "result_id" not in csv.columns


# The pages on the real warehouse: what they show equals the marts.


def capacity_chart(at: object) -> dict:
    specs = figures.chart_specs(at)
    return next(s for s in specs if s["layout"]["title"]["text"] == "Capacity before and after")


def test_capacity_page_draws_each_observation_once_in_tb_and_tib(warehouse_env: Path) -> None:
    at = open_page("app_pages/capacity.py")
    chart = capacity_chart(at)
    expected = query(
        warehouse_env,
        "select logical_used_tb, logical_used_tib, physical_used_tb, physical_used_tib "
        "from marts.dedupe_ratios where testbed is not null and logical_used_bytes is not null "
        "and physical_used_bytes is not null",
    )
    logical, physical = chart["data"]
    assert len(logical["x"]) == len(set(logical["x"])) == len(expected) > 0
    assert sorted(zip(logical["y"], logical["customdata"], strict=True)) == sorted(
        (r[0], r[1]) for r in expected
    )
    assert sorted(zip(physical["y"], physical["customdata"], strict=True)) == sorted(
        (r[2], r[3]) for r in expected
    )
    ((unlabelled,),) = query(
        warehouse_env, "select count(*) from marts.dedupe_ratios where testbed is null"
    )
    subtitle = chart["layout"]["title"]["subtitle"]["text"]
    if unlabelled:
        assert f"{unlabelled} observation" in subtitle and "without a testbed label" in subtitle
    # one capture loaded from two files is one row; its files are named
    for ids, count in query(
        warehouse_env, "select source_file_ids, source_file_count from marts.dedupe_ratios"
    ):
        assert len(ids) == count


def test_capacity_tiles_equal_the_mart_in_both_units(warehouse_env: Path) -> None:
    at = open_page("app_pages/capacity.py")
    shown = headline_metrics(at)
    ((saved_tb, saved_tib),) = query(
        warehouse_env,
        "select saved_tb, saved_tib from marts.latest_dedupe_ratios "
        "where testbed = 'micron-sata-vsan67' and working_set = 'capacity'",
    )
    saved = shown["micron-sata-vsan67 · density · capacity"]["Saved, TB / TiB"]
    assert saved == f"{saved_tb:,.2f} / {saved_tib:,.2f}" == "27.60 / 25.10"


@pytest.mark.parametrize("page", ["app_pages/capacity.py", "app_pages/published.py"])
def test_published_capacity_in_both_units_as_the_mart(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    tables = [t.value for t in at.dataframe]
    table = next(t for t in tables if "published_tib" in t.columns and "figure_id" in t.columns)
    row = table[table["figure_id"] == "micron67-fig16-capacity-used-before"].iloc[0]
    ((tb, tib, measured_tb, measured_tib),) = query(
        warehouse_env,
        "select published_tb, published_tib, measured_tb, measured_tib "
        "from marts.published_vs_measured where figure_id = 'micron67-fig16-capacity-used-before'",
    )
    assert (row["published_tb"], row["published_tib"]) == (tb, tib)
    assert (row["measured_tb"], row["measured_tib"]) == (measured_tb, measured_tib)
    assert round(tib, 2) == 28.58 and round(tb, 2) == 31.42
    assert "TiB" in row["unit_meaning" if "unit_meaning" in table.columns else "unit"]


def test_published_page_charts_every_measured_figure(warehouse_env: Path) -> None:
    at = open_page("app_pages/published.py")
    chart = next(
        s for s in figures.chart_specs(at) if s["layout"]["title"]["text"].startswith("Measured")
    )
    ((drawable,),) = query(
        warehouse_env,
        "select count(*) from marts.published_vs_measured "
        "where measured_value is not null and published_value <> 0",
    )
    marks = [y for trace in chart["data"] for y in trace["y"]]
    assert len(marks) == len(set(marks)) == drawable > 0
    assert {t["name"] for t in chart["data"]} <= set(published.STATUS_ORDER)
    assert charts.published_ratio_chart is published_ratio_chart
