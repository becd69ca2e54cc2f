"""Profile and configuration deltas: what each data service costs, and one-label comparisons.

Every selector is in the URL (`?testbed=...&delta=...&bs=4096&dim=profile&metric=...&color=...`):
opening such a URL shows the same view.
"""

import polars as pl
import streamlit as st

from app.lib import charts, queries, selection, ui
from app.lib.charts.common import has_values
from app.lib.charts.deltas import CONFIG_DELTA_METRICS
from app.lib.url_state import UrlState
from app.lib.views import compare as compare_view
from app.lib.views import profile_deltas as view

where, filters = ui.context()
url = UrlState(view.PARAMS)
deltas = queries.profile_latency_deltas(where, filters)
configs = queries.config_deltas(where, filters)
testbeds = view.testbeds(deltas, configs)
# One testbed for both sections: a chart's bars share their testbed (the subtitle names it).
testbed = url.select("testbed", "Testbed", testbeds, index=view.opening_testbed(deltas, testbeds))
chosen: dict[str, str | None] = {"testbed": testbed}

st.subheader("Cost of each data service per read mix")
st.caption(
    "Profiles add data services step by step (checksum, RAID-5, dedupe and compression); "
    "deltas are 100 × (profile − reference) / reference. Red is worse."
)
part = deltas.filter(pl.col("testbed") == testbed) if testbed else deltas.clear()
if ui.has_data(part, "profile deltas", "They need results of several profiles on one testbed."):
    left, right = st.columns(2)
    metric = url.select("delta", "Delta", list(view.METRICS), widget=left.selectbox,
                        format_func=view.METRICS.get)  # fmt: skip
    chosen["delta"] = metric
    sizes = [str(s) for s in view.block_sizes(part)]
    if len(sizes) > 1:
        size = url.select("bs", "Block size", sizes, widget=right.selectbox,
                          format_func=lambda s: charts.bytes_label(int(s)))  # fmt: skip
        chosen["bs"] = size
        part = part.filter(pl.col("block_size_bytes") == int(size))
    if view.shares_cells(part):
        st.warning(
            "Several results share a profile and read mix here (another label varies): "
            "the heatmap would have to average them, so the rows are listed instead."
        )
    else:
        ui.plot(
            charts.profile_delta_heatmap(part, metric=metric, title=view.METRICS[metric]),
            "profile_deltas",
            points=part,
        )
    with ui.expander("Data", name="profile_deltas") as box:
        if box.open:
            ui.table(part)
            ui.download_csv(part, "profile_deltas")

st.subheader("One-label comparisons")
st.caption(
    "Pairs of results on one testbed and workload that differ in exactly one comparison "
    "dimension (config_deltas). One bar per pair; its label names the change and what "
    "differs from the other bars, the subtitle what they share. Error bars are the 95 % "
    "interval of the difference where the runs give spread information."
)
part = configs.filter(pl.col("testbed") == testbed) if testbed else configs.clear()
if part.is_empty():
    ui.no_data(f"one-label comparisons on {testbed}" if testbed else "one-label comparisons")
else:
    left, mid, right = st.columns(3)
    dimensions = sorted(part["dimension"].unique())
    dimension = url.select("dim", "Dimension that differs", dimensions, widget=left.selectbox)
    part = part.filter(pl.col("dimension") == dimension)
    metrics = [m for m in CONFIG_DELTA_METRICS if has_values(part, m)] or ["iops_delta_pct"]
    metric = url.select("metric", "Delta", metrics, widget=mid.selectbox,
                        format_func=CONFIG_DELTA_METRICS.get)  # fmt: skip
    contexts, first = view.colour_choices(part)
    color_by = url.select("color", "Colour by", contexts, index=first, widget=right.selectbox,
                          format_func=lambda c: c.replace("_", " "))  # fmt: skip
    chosen |= {"dim": dimension, "metric": metric, "color": color_by}
    part = view.named_pairs(part, color_by=color_by)
    fig = charts.config_delta_bars(
        part, metric=metric, color_by=color_by, title=f"Changing {dimension}",
        subtitle=view.pair_subtitle(part, color_by=color_by),
    )  # fmt: skip
    ui.plot(fig, "config_deltas", points=compare_view.readable_differences(part))
    with ui.expander("Data (one row per bar)", name="config_deltas") as box:
        if box.open:
            table = selection.flat(compare_view.readable_differences(part))
            ui.table(table)
            ui.download_csv(table, "config_deltas")
url.publish(chosen)
