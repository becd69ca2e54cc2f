"""Capacity: dedupe/compression ratios, policy capacity multipliers, usable-to-raw, and the
capacity by object type. Every capacity is shown in TB (10^12 bytes) and TiB (2^40 bytes),
each read from the mart's column of that unit; one capture loaded from several files (JSON
and XML) is one observation (dedupe_ratios)."""

import streamlit as st

from app.lib import charts, queries, queries_provenance, queries_studies, ui
from app.lib.charts import studies as study_charts
from app.lib.views import capacity as view
from app.lib.views import studies

where, filters = ui.context()

st.caption(
    "Ratio = logical used before dedupe and compression / physical used after. "
    "Usable-to-raw = ratio / capacity multiplier of the policy (RAID-1 FTT=1: 2x, RAID-5 3+1: "
    f"1.33x). Capacities in TB and TiB ({view.UNITS}): vSphere's capacity view prints TiB "
    "and calls it “TB”; published figures are listed as printed, with what their unit is."
)


def headline(row: dict) -> None:
    st.markdown(view.heading(row))
    for col, (label, value, about) in zip(st.columns(4), view.headline(row), strict=True):
        col.metric(label, value, help=about)


ratios = view.as_text_lists(queries.dedupe_ratios(where, filters))
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
    points, notes = view.drawn(ratios)
    ui.plot(charts.capacity_bars(points, notes=notes), "capacity", points=points)
    if merged := view.merged_captures(ratios):
        st.caption(
            f"{merged} observation(s) were loaded from several files (one capture saved as "
            "JSON and as XML): each is one observation; `source_file_ids` names the files."
        )
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
    fig = charts.with_subtitle(fig, view.object_types_subtitle(objects))
    ui.plot(fig, "capacity_by_object_type", points=objects)

st.subheader("Published capacity figures")
published = view.published_capacity(queries_provenance.published_vs_measured(where, filters))
if published.is_empty():
    ui.no_data("published capacity figures")
else:
    ui.table(published)
