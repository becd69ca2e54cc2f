"""Capacity: dedupe/compression ratios, policy capacity multipliers, usable-to-raw, and the
capacity by object type. One unit rule: TB = 10^12 bytes (the marts hold bytes)."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, queries_studies, ui
from app.lib.charts import studies as study_charts
from app.lib.views import studies

where, filters = ui.context()

PUBLISHED_METRICS = (
    "dedupe_compression_ratio",
    "capacity_multiplier",
    "usable_to_raw_ratio",
    "capacity_used_before_tb",
    "capacity_used_after_tb",
    "capacity_overhead_pct",
)
PUBLISHED_COLUMNS = ["source_document", "testbed", "metric", "value", "unit", "value_as_printed"]
TB = study_charts.TB

st.caption(
    "Ratio = logical used before dedupe and compression / physical used after. "
    "Usable-to-raw = ratio / capacity multiplier of the policy (RAID-1 FTT=1: 2x, RAID-5 3+1: "
    "1.33x). Every capacity on this page is in TB = 10^12 bytes, computed from the bytes "
    "the marts hold; published figures are listed as printed, with the document's unit."
)


def headline(row: dict) -> None:
    context = " · ".join(str(row[c]) for c in ("profile", "working_set") if row.get(c))
    st.markdown(
        f"**{row['testbed']}**"
        + (f" · {context}" if context else "")
        + f" · captured {str(row['captured_at'])[:16]} UTC"
    )
    cols = st.columns(4)
    cols[0].metric("Dedupe & compression", ui.fmt(row["dedupe_compression_ratio"], ".2f", "x"))
    policy = f"{row['ftm']} FTT={row['ftt']}" if row.get("ftm") else "no policy label"
    cols[1].metric(
        "Capacity multiplier", ui.fmt(row["capacity_multiplier"], ".2f", "x"), help=policy
    )
    cols[2].metric("Usable to raw", ui.fmt(row["usable_to_raw_ratio"], ".2f", "x"))
    logical, physical = row["logical_used_bytes"], row["physical_used_bytes"]
    saved = None if logical is None or physical is None else (logical - physical) / TB
    cols[3].metric(
        "Saved",
        ui.fmt(saved, ",.2f", " TB"),
        help=f"logical {ui.fmt(logical and logical / TB, ',.2f', ' TB')}, "
        f"physical {ui.fmt(physical and physical / TB, ',.2f', ' TB')} (TB = 10^12 bytes)",
    )


ratios = queries.dedupe_ratios(where, filters)
if ui.has_data(ratios, "capacity observations", "Load vSAN capacity captures (`vsan_capacity`)."):
    # The latest dated observation per testbed, profile and working set; undated ones are
    # never "latest" (nothing says when they were taken).
    for row in queries.latest_dedupe_ratios(where, filters).iter_rows(named=True):
        headline(row)
    undated = ratios.filter(pl.col("captured_at").is_null())
    if undated.height:
        st.caption(
            f"{undated.height} observation(s) without a capture time are not a headline: "
            "see All observations."
        )
    ui.plot(charts.capacity_bars(ratios), "capacity")
    with ui.expander("All observations", name="dedupe_ratios") as box:
        if box.open:
            ui.table(ratios)
            ui.download_csv(ratios, "dedupe_ratios")

st.subheader("Capacity by object type")
objects = queries_studies.capacity_by_object_type(where, filters)
if objects.is_empty():
    ui.no_data("capacity breakdown by object type", "VsanSpaceUsage captures carry one.")
else:
    objects = studies.observations(objects)
    fig = study_charts.capacity_by_object_type(objects, title="Used capacity by object type")
    ui.plot(fig, "capacity_by_object_type")

st.subheader("Published capacity figures")
published = queries.published_results(where, filters, PUBLISHED_METRICS)
if published.is_empty():
    ui.no_data("published capacity figures")
else:
    ui.table(published.select([*PUBLISHED_COLUMNS, "note"]))
