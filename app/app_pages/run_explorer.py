"""Run explorer: one workload result in depth: where it comes from (files, tools, labels and
their origin), its steady state and confidence intervals, and the detail marts that exist.

The result is chosen in the selector or named in the URL (`?result_id=...`, what every "open
in run explorer" link carries); the URL follows the selector, so a view can be shared.
"""

import polars as pl
import streamlit as st

from app.lib import charts, notices, provenance, queries, queries_provenance, ui
from app.lib.url_state import UrlState
from app.lib.views import run_explorer as view

where, filters = ui.context()
PARAM = provenance.PARAM
url = UrlState({PARAM: "run_explorer_result"})

results = queries.workload_results(where, filters)
# A link names its result in the URL: shown even when the sidebar filters would hide it, as
# long as the selector holds it.
offered = results["result_id"].to_list() if not results.is_empty() else []
if (held := url.held_link(PARAM, offered)) is not None:
    linked = queries_provenance.result_by_id(where, held)
    if linked.is_empty():
        notices.show(notices.unknown_result_notice(held))
    else:
        notices.show(notices.LINKED_OUTSIDE_FILTERS)
        results = pl.concat([linked, results], how="diagonal_relaxed")
        url.hold(PARAM, held)
if results.is_empty():
    ui.no_data("workload results")
    st.stop()

labels = provenance.result_choices(results)
result_id = url.select(PARAM, "Workload result", list(labels), format_func=labels.get)
url.publish({PARAM: result_id})  # no URL yet, or its result is no longer offered
# The selected row is already in `results`: no second query (a connection costs ~40 ms).
selected = results.filter(pl.col("result_id") == result_id)
row = selected.row(0, named=True)
ui.reconstructed_note(selected)
ui.latency_kind_note(selected)
ui.metric_row(row, view.HEADLINE, help=view.cpu_source_help(row))
subtitle = view.result_subtitle(selected)  # every chart's: which run it is
fig = charts.latency_figures(row, title="Latency figures", subtitle=subtitle)
ui.plot(fig, "run_latency", points=view.latency_points(row))

# --- Provenance: the files, tools and labels behind every number above --------------------
# One query call (one connection) for every section of this result.
depth = queries.result_in_depth(where, result_id)
provenance.show_source_files(depth["source_files"])
provenance.show_label_origins(depth["label_origins"], where, result_id)
label = "Every column of this result (measures, sources, completeness)"
with ui.expander(label, name="every_column") as box:
    if box.open:
        ui.table(view.every_column(results, row))

# --- Steady state and 95 % confidence intervals (fct_result_steady_state) --------------------
window = None
if depth["steady_state"] is not None:
    st.subheader("Steady state and confidence intervals")
    if depth["steady_state"].is_empty():
        st.caption("No interval series for this result: no steady-state window and no spread "
                   "information (the means above are the tool's whole-run figures).")  # fmt: skip
    else:
        state = depth["steady_state"].row(0, named=True)
        window = view.steady_window(state)
        cols = st.columns(4)
        criterion = state.get("steady_state_criterion") or "the series never settled"
        reached = "reached" if state["is_steady_state"] else "not reached"
        cols[0].metric("Steady state", reached, help=criterion)
        text, about = view.steady_window_text(state), view.steady_window_help(state)
        cols[1].metric("Window of the means", text, help=about)
        for col, (name, measure, spec) in zip(cols[2:], view.STEADY_MEANS, strict=True):
            col.metric(name, ui.fmt(state[f"{measure}_mean"], spec))
            col.caption(view.ci_text(state, measure, spec))

# --- Detail marts: each section appears once its table exists (added by dbt over time) ------
texts = view.section_texts(row, depth["captures"])


def rows_of(name: str) -> pl.DataFrame | None:
    """A section's heading and rows; a caption instead when the result has none (None: its
    mart does not exist yet, or no rows)."""
    rows = depth.get(name)
    if rows is not None:
        st.subheader(texts[name][0])
        if rows.is_empty():
            st.caption(texts[name][1])
            return None
    return rows


spread, outputs = depth.get("per_node"), depth.get("outputs")
if outputs is not None:
    st.subheader("Per-VM and per-host spread")
if spread is not None and not spread.is_empty():
    if outputs is None:
        st.subheader("Per-host spread")
    first = spread.row(0, named=True)
    ui.metric_row(first, view.SPREAD, help=view.spread_help(first))
if outputs is not None and outputs.is_empty():
    st.caption("No per-VM or per-job outputs for this result.")
elif outputs is not None:
    title = f"Spread across {charts.plural(outputs.height, 'output')}"
    fig = charts.spread_strip(outputs, title=title, subtitle=subtitle)
    ui.plot(fig, "run_spread", key="run_spread", points=outputs)
    with ui.expander(charts.plural(outputs.height, "output"), name="outputs") as box:
        if box.open:
            ui.table(outputs)

if (percentiles := rows_of("percentiles")) is not None:
    fig = charts.percentile_curve(percentiles, subtitle=subtitle)
    ui.plot(fig, "run_percentiles", key="run_percentiles", points=percentiles)
    with ui.expander("Percentiles", name="percentiles") as box:
        if box.open:
            ui.table(percentiles)
if (histogram := rows_of("histogram")) is not None:
    fig = charts.latency_histogram(histogram, subtitle=subtitle)
    ui.plot(fig, "run_histogram", key="run_histogram", points=histogram)
for name, metrics, title in view.SERIES:
    if (rows := rows_of(name)) is not None:
        mart = queries.SERIES_MARTS[queries.RESULT_SERIES[name]]
        shade = window if name == "intervals" else None
        fig = charts.time_lines(rows, x=mart.x, metrics=metrics, by=list(mart.by), title=title,
                                window=shade, subtitle=subtitle)  # fmt: skip
        ui.plot(fig, f"run_{name}", key=f"run_{name}", points=rows)
        if name == "host_cpu" and (caption := view.cpu_caption(rows)) is not None:
            st.caption(caption)
# Which host captures the host CPU comes from, and which were left out and why.
provenance.show_captures(view.captures_section(depth["captures"]))

# Any other per-result mart added later still gets a plain section with its rows.
if all(depth[name] is None for name in view.DETAIL_SECTIONS):
    st.caption(
        "Per-VM spread, latency percentiles, histograms and time series appear here once "
        "their marts exist."
    )
# Shown only where the result has rows: an empty section tells the reader nothing.
others = view.other_marts(queries.marts_columns(where))
found = queries_provenance.result_rows_in(where, others, result_id)
if found:
    st.subheader("Other marts with rows of this result")
for table, detail in found.items():
    with ui.expander(f"{table} ({charts.plural(detail.height, 'row')})", name=table) as box:
        if box.open:
            ui.table(detail.head(5000))
