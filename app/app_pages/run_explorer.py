"""Run explorer: one workload result in depth: where it comes from (files, tools, labels and
their origin), its steady state and confidence intervals, and the detail marts that exist.

The result is chosen in the selector or named in the URL (`?result_id=...`, what every "open
in run explorer" link carries); the URL follows the selector, so a view can be shared.
"""

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_provenance, ui
from app.lib.charts.common import display

where, filters = ui.context()
SELECTOR = "run_explorer_result"
URL_SEEN = "run_explorer_url_seen"  # the result_id of the URL the page last acted on
LINKED = "run_explorer_linked"  # a result a link brought in, outside the sidebar filters

# Marts with a `result_id` that are not details of one result, or have their own section;
# every other marts table with a `result_id` column (added later) gets a plain section.
SUMMARY_MARTS = {
    "fct_workload_results",
    "per_node_iops",
    "scaling_points",
    "fct_result_labels",
    "fct_result_source_files",
    "fct_result_label_origins",
    "fct_result_steady_state",
    *queries.RESULT_ROWS.values(),
    *queries.RESULT_SERIES.values(),
}
# Workload columns shown beside the labels and provenance (charts.COLUMNS are measures).
WORKLOAD_COLUMNS = ("nodes", "vm_count", "read_pct", "block_size_bytes", "outstanding_io")
HOST_CPU_METRICS = ["cpu_util_pct"]
TOOL_NAMES = {"vdbench": "Vdbench", "hcibench_summary": "An HCIBench summary"}
# Where fct_workload_results.cpu_util_pct comes from (cpu_util_source), as the page says it.
CPU_SOURCES = {
    "capture": "esxtop / vSAN host samples in the run window, hosts' mean",
    "hcibench_resource_usage": "HCIBench resource usage, one figure per run",
}
# Section -> (heading, caption when the result has no rows in its mart).
SECTIONS = {
    "percentiles": (
        "Latency percentiles",
        "The tool reported no completion-latency percentiles for this result.",
    ),
    "histogram": (
        "Latency histogram (fio json+)",
        "No json+ latency buckets: the run used `--output-format=json`, not `json+`.",
    ),
    "intervals": (
        "Over the run: intervals",
        "No interval samples (fio log / Vdbench interval lines) for this result.",
    ),
    "host_cpu": (
        "Over the run: host CPU",
        "No esxtop or vSAN host samples in this result's run window.",
    ),
}

results = queries.workload_results(where, filters)
# A link names its result in the URL: shown even when the sidebar filters would hide it, as
# long as the selector holds it. A URL the page wrote itself is no link: a filter that hides
# the selected result then moves the selector on.
wanted = st.query_params.get(provenance.PARAM)
is_new_link = wanted is not None and wanted != st.session_state.get(URL_SEEN)
# The result a followed link brought in stays while the selector holds it.
held = is_new_link or st.session_state.get(LINKED) == wanted
if wanted and held and (results.is_empty() or wanted not in results["result_id"].to_list()):
    linked = queries_provenance.result_by_id(where, wanted)
    if linked.is_empty():
        st.error(
            f"No workload result `{wanted}` in the warehouse: the link may come from another "
            "warehouse or an older version of it.",
            icon=":material/error:",
        )
    else:
        st.info(
            "The linked result does not pass the sidebar filters; it is shown because the "
            "link names it.",
            icon=":material/link:",
        )
        results = pl.concat([linked, results], how="diagonal_relaxed")
        st.session_state[LINKED] = wanted
if results.is_empty():
    ui.no_data("workload results")
    st.stop()

labels = provenance.result_choices(results)


def follow_selector() -> None:
    """The URL follows the selector (a callback runs before the page, so the URL is the
    selection by the time the page reads it)."""
    st.query_params[provenance.PARAM] = st.session_state[SELECTOR]
    st.session_state[URL_SEEN] = st.session_state[SELECTOR]


# The URL is the selection: a followed link chooses the result, and a change of options
# (a filter) keeps it while it is still offered.
if wanted in labels:
    st.session_state[SELECTOR] = wanted
st.session_state[URL_SEEN] = wanted
result_id = st.selectbox(
    "Workload result", list(labels), format_func=labels.get, key=SELECTOR, on_change=follow_selector
)
if result_id != wanted:  # no URL yet, or its result is no longer offered
    st.query_params[provenance.PARAM] = result_id
    st.session_state[URL_SEEN] = result_id
# The selected row is already in `results`: no second query (a connection costs ~40 ms).
selected = results.filter(pl.col("result_id") == result_id)
row = selected.row(0, named=True)
ui.reconstructed_note(selected)

ui.metric_row(
    row,
    [
        ("IOPS", "iops", ",.0f"),
        ("Throughput (MB/s)", "throughput_mb_s", ",.1f"),
        ("Average latency (ms)", "avg_latency_ms", ".3f"),
        ("Host CPU (%)", "cpu_util_pct", ".1f"),
    ],
    help="Source: " + CPU_SOURCES.get(row["cpu_util_source"], "none (no host CPU figure)"),
)
ui.plot(charts.latency_figures(row, title="Latency figures"), "run_latency")

# --- Provenance: the files, tools and labels behind every number above --------------------
# Source-file columns shown, in order; the path in full is also printed as text below.
FILE_COLUMNS = [
    "file_role", "source_path", "source_format", "tool_version", "parser_version",
    "hcibench_case", "size_bytes", "sha256", "loaded_at",
]  # fmt: skip
# More files than this: the full paths go into an expander.
PATHS_SHOWN = 12
# Outputs first, then the file the labels were read with, then the rest of the test case.
FILE_ORDER = ["role_order", "source_path"]
ROLE_ORDER = {"output": 1, "labels": 2, "test case": 3}


def ordered(rows: pl.DataFrame | None, by: list[str]) -> pl.DataFrame | None:
    """A section's rows in reading order (None: the mart is not built yet)."""
    if rows is None or rows.is_empty():
        return rows
    if "role_order" in by:
        role = pl.col("file_role").replace_strict(ROLE_ORDER, default=9, return_dtype=pl.Int8)
        return rows.with_columns(role_order=role).sort(by).drop("role_order")
    return rows.sort(by)


def show_source_files(files: pl.DataFrame | None) -> None:
    st.subheader("Where this result comes from")
    if files is None:
        st.caption("The provenance mart `fct_result_source_files` is not built yet: `dbt build`.")
        return
    if files.is_empty():
        st.warning("No source file is recorded for this result.", icon=":material/warning:")
        return
    tools = files.filter(pl.col("file_role") != "test case").unique(
        ["source_format", "tool_version", "parser_version"], maintain_order=True
    )
    st.markdown(
        "**Tool** "
        + "; ".join(
            f"{r['source_format']} {r['tool_version'] or '(version not printed)'}, "
            f"parser version {r['parser_version']}"
            for r in tools.iter_rows(named=True)
        )
        + f" · {files.height} files"
    )
    paths = "\n".join(files["source_path"].to_list())
    if files.height <= PATHS_SHOWN:
        st.text(paths)
    else:
        with st.expander(f"Raw paths in full ({files.height} files)"):
            st.text(paths)
    ui.table(
        files.select([c for c in FILE_COLUMNS if c in files.columns]),
        column_config={"source_path": st.column_config.TextColumn("Path", width="large")},
    )


def show_label_origins(origins: pl.DataFrame | None) -> None:
    st.markdown("**Labels and workload, and where each value came from**")
    if origins is None:
        # The mart is not built yet: the labels without their origin.
        st.json(queries.result_labels(where, result_id))
        return
    ui.table(
        origins.select("label_key", "label_value", "origin", "origin_detail"),
        column_config={"origin_detail": st.column_config.TextColumn(width="large")},
    )


# One query call (one connection) for every section of this result.
depth = queries.result_in_depth(where, result_id)
show_source_files(ordered(depth["source_files"], FILE_ORDER))
show_label_origins(ordered(depth["label_origins"], ["origin", "label_key"]))
with ui.expander(
    "Every column of this result (measures, sources, completeness)", name="every_column"
) as box:
    if box.open:
        fields = [c for c in results.columns if c != "labels_json"]
        ui.table(pl.DataFrame({"field": fields, "value": [display(row[c]) for c in fields]}))


# --- Steady state and 95 % confidence intervals (fct_result_steady_state) --------------------
def ci_text(state: dict, measure: str, spec: str) -> str:
    low, high = state.get(f"{measure}_ci95_low"), state.get(f"{measure}_ci95_high")
    if low is None or high is None:
        return "no spread information"
    return f"95 % CI {low:{spec}} to {high:{spec}}"


def show_steady_state(states: pl.DataFrame | None) -> tuple[float, float] | None:
    """The steady-state section; returns the steady window (elapsed s) to shade, if any."""
    if states is None:
        return None
    st.subheader("Steady state and confidence intervals")
    if states.is_empty():
        st.caption("No interval series for this result: no steady-state window and no spread "
                   "information (the means above are the tool's whole-run figures).")  # fmt: skip
        return None
    state = states.row(0, named=True)
    steady = bool(state["is_steady_state"])
    cols = st.columns(4)
    cols[0].metric(
        "Steady state",
        "reached" if steady else "not reached",
        help=state.get("steady_state_criterion") or "the series never settled",
    )
    window = f"{ui.fmt(state['ci_window_start_s'], ',.0f')} to "
    window += f"{ui.fmt(state['ci_window_end_s'], ',.0f')} s"
    cols[1].metric("Window of the means", window, help=f"{state['ci_window_interval_count']} "
                   f"intervals; method: {state['ci_method']}")  # fmt: skip
    for col, (label, measure, spec) in zip(
        cols[2:],
        [("Mean IOPS", "iops", ",.0f"), ("Mean latency (ms)", "avg_latency_ms", ".3f")],
        strict=True,
    ):
        col.metric(label, ui.fmt(state[f"{measure}_mean"], spec))
        col.caption(ci_text(state, measure, spec))
    if steady and state["steady_state_start_s"] is not None:
        return state["steady_state_start_s"], state["steady_state_end_s"]
    return None


window = show_steady_state(depth["steady_state"])

# --- Detail marts: each section appears once its table exists (added by dbt over time) ------
tables = queries.marts_columns(where)


def section(name: str, title: str) -> pl.DataFrame | None:
    """The heading and this result's rows; None when the section's mart does not exist yet."""
    if depth.get(name) is None:
        return None
    st.subheader(title)
    return depth[name]


def rows_of(name: str) -> pl.DataFrame | None:
    """A section's heading and rows; a caption instead when the result has none."""
    title, when_empty = SECTIONS[name]
    rows = section(name, title)
    if rows is not None and rows.is_empty():
        st.caption(when_empty)
        return None
    return rows


spread = depth.get("per_node")
outputs = section("outputs", "Per-VM and per-host spread")
if spread is not None and not spread.is_empty():
    if outputs is None:
        st.subheader("Per-host spread")
    s = spread.row(0, named=True)
    ui.metric_row(
        s,
        [
            ("IOPS per node", "iops_per_node", ",.0f"),
            ("Busiest host IOPS", "host_iops_max", ",.0f"),
            ("Quietest host IOPS", "host_iops_min", ",.0f"),
            ("Host imbalance", "host_imbalance_pct", ".1f", "%"),
        ],
        help="100 × (busiest host − mean host) / mean host; "
        + f"source: {s['host_iops_source'] or charts.MISSING}",
    )
if outputs is not None:
    if outputs.is_empty():
        st.caption("No per-VM or per-job outputs for this result.")
    else:
        ui.plot(
            charts.spread_strip(outputs, title=f"Spread across {outputs.height} outputs"),
            "run_spread",
            key="run_spread",
        )
        with ui.expander(f"{outputs.height} outputs", name="outputs") as box:
            if box.open:
                ui.table(outputs)

percentiles = rows_of("percentiles")
if percentiles is not None:
    ui.plot(charts.percentile_curve(percentiles), "run_percentiles", key="run_percentiles")
    with ui.expander("Percentiles", name="percentiles") as box:
        if box.open:
            ui.table(percentiles)

# Only fio's json+ output has latency buckets: say why a result has none by its tool.
if row["source_tool"] != "fio":
    SECTIONS["histogram"] = (
        SECTIONS["histogram"][0],
        f"{TOOL_NAMES.get(row['source_tool'], row['source_tool'])} reports no latency "
        "histogram (only fio's json+ output does).",
    )
# A per-run CPU figure (HCIBench) without samples: the empty series must not contradict it.
if row["cpu_util_source"] == "hcibench_resource_usage":
    SECTIONS["host_cpu"] = (
        SECTIONS["host_cpu"][0],
        "No per-sample host CPU series in this result's run window; the Host CPU figure above "
        "is HCIBench's resource-usage figure for the whole run.",
    )
histogram = rows_of("histogram")
if histogram is not None:
    ui.plot(charts.latency_histogram(histogram), "run_histogram", key="run_histogram")

intervals = rows_of("intervals")
if intervals is not None:
    mart = queries.SERIES_MARTS[queries.RESULT_SERIES["intervals"]]
    ui.plot(
        charts.time_lines(
            intervals,
            x=mart.x,
            metrics=["iops", "throughput_mb_s", "avg_latency_ms"],
            by=list(mart.by),
            title="IOPS, throughput and latency per interval",
            window=window,
        ),
        "run_intervals",
        key="run_intervals",
    )

cpu = rows_of("host_cpu")
if cpu is not None:
    mart = queries.SERIES_MARTS[queries.RESULT_SERIES["host_cpu"]]
    ui.plot(
        charts.time_lines(
            cpu, x=mart.x, metrics=HOST_CPU_METRICS, by=list(mart.by), title="Host CPU"
        ),
        "run_host_cpu",
        key="run_host_cpu",
    )
    if cpu["samples_in_point"].max() > 1:
        st.caption(
            f"Averaged to at most {queries.MAX_POINTS:,} points per host "
            f"({cpu['samples_in_point'].sum():,} samples in the window)."
        )

# Any other per-result mart added later still gets a plain section with its rows.
details = sorted(t for t, c in tables.items() if "result_id" in c and t not in SUMMARY_MARTS)
if all(depth[name] is None for name in ("outputs", "percentiles", "intervals", "host_cpu")):
    st.caption(
        "Per-VM spread, latency percentiles, histograms and time series appear here once "
        "their marts exist."
    )
# Shown only where the result has rows: an empty section tells the reader nothing.
found = queries_provenance.result_rows_in(where, tuple(details), result_id)
if found:
    st.subheader("Other marts with rows of this result")
for table, detail in found.items():
    with ui.expander(f"{table} ({detail.height} rows)", name=table) as box:
        if box.open:
            ui.table(detail.head(5000))
