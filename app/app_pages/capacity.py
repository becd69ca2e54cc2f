"""Capacity: dedupe/compression ratios, policy capacity multipliers, usable-to-raw, and the
capacity by object type. One unit rule: TB = 10^12 bytes (the marts hold bytes)."""

import streamlit as st

from app.lib import charts, queries, queries_studies, ui
from app.lib.charts import studies as study_charts
from app.lib.views import capacity as view
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

st.caption(
    "Ratio = logical used before dedupe and compression / physical used after. "
    "Usable-to-raw = ratio / capacity multiplier of the policy (RAID-1 FTT=1: 2x, RAID-5 3+1: "
    "1.33x). Every capacity on this page is in TB = 10^12 bytes, computed from the bytes "
    "the marts hold; published figures are listed as printed, with the document's unit."
)


def headline(row: dict) -> None:
    st.markdown(view.heading(row))
    for col, (label, value, about) in zip(st.columns(4), view.headline(row), strict=True):
        col.metric(label, value, help=about)


ratios = queries.dedupe_ratios(where, filters)
if ui.has_data(ratios, "capacity observations", "Load vSAN capacity captures (`vsan_capacity`)."):
    # The latest dated observation per testbed, profile and working set; undated ones are
    # never "latest" (nothing says when they were taken).
    for row in queries.latest_dedupe_ratios(where, filters).iter_rows(named=True):
        headline(row)
    if undated := view.undated(ratios):
        st.caption(
            f"{undated} observation(s) without a capture time are not a headline: "
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
