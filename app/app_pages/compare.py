"""Compare: two runs, two testbeds or two profiles side by side, with the selection in the URL.

`?compare=runs&a=<result_id>&b=<result_id>`, `?compare=testbeds&a=<testbed>&b=<testbed>` or
`?compare=profiles&testbed=<t>&a=<profile>&b=<profile>`: opening such a URL restores the
comparison, and the URL follows every change, so a comparison can be shared. Deltas and their
significance come from the marts (config_deltas with the interval of the difference,
fct_result_steady_state per result); a pair the marts do not attribute to one label gets its
values side by side, never a made-up significance.
"""

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_provenance, ui
from app.lib.charts import compare as compare_charts
from app.lib.charts.common import bytes_label, display

where, filters = ui.context()

MODES = {"runs": "Two runs", "testbeds": "Two testbeds", "profiles": "Two profiles"}
# URL parameter -> widget key.
PARAMS = {
    "compare": "compare_mode",
    "testbed": "compare_testbed",
    "a": "compare_a",
    "b": "compare_b",
}
URL_SEEN = "compare_url_seen"
# The labels shown side by side for two runs (measures follow), and the measures.
LABELS = [
    "testbed", "profile", "transport", "vsan_version", "working_set", "nodes", "vm_count",
    "read_pct", "random_pct", "block_size_bytes", "outstanding_io", "architecture", "ftm",
    "ftt", "is_checksum", "is_dedupe", "is_compression", "stripe_width", "disk_groups",
    "storage", "source_tool", "started_at",
]  # fmt: skip
MEASURES = [
    "iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms", "p99_latency_ms",
    "cpu_util_pct",
]  # fmt: skip
# Shown side by side, but facts of a run rather than labels that could explain a difference.
RUN_FACTS = ("source_tool", "started_at")
Y_CHOICES = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms"]
# The columns of a config_deltas row the page shows: what changed, deltas, significance.
DELTA_KEYS = ("dimension", "from_value", "to_value", "differences", "working_set")


def url_value(param: str) -> str | None:
    value = st.query_params.get(param)
    return value or None


def restore(param: str, options: list[str]) -> None:
    """Before a widget is drawn: a URL value the page has not acted on yet sets it (a shared
    link); a value not among the options is named, not silently replaced."""
    value = url_value(param)
    seen = st.session_state.setdefault(URL_SEEN, {})
    if value is None or seen.get(param) == value:
        return
    seen[param] = value
    if value in options:
        st.session_state[PARAMS[param]] = value
    else:
        st.warning(
            f"The link's `{param}` = `{value}` is not in the warehouse for the current filters.",
            icon=":material/link_off:",
        )


def publish(values: dict[str, str | None]) -> None:
    """Write the selection into the URL (and remember it as acted on)."""
    seen = st.session_state.setdefault(URL_SEEN, {})
    for param in PARAMS:
        value = values.get(param)
        if value is None:
            st.query_params.pop(param, None)
        elif st.query_params.get(param) != value:
            st.query_params[param] = value
        seen[param] = value


def pick(param: str, label: str, options: list[str], index: int, **kwargs: object) -> str | None:
    """A selector whose value the URL can set; `index` is its default on a first view."""
    restore(param, options)
    if not options:
        return None
    key = PARAMS[param]
    if st.session_state.get(key) not in options:  # first view, or a value filtered away
        st.session_state[key] = options[min(index, len(options) - 1)]
    return st.selectbox(label, options, key=key, **kwargs)


def with_steady_state(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows with their steady-state means and intervals (fct_result_steady_state)."""
    states = queries_provenance.steady_states(where, tuple(rows["result_id"].to_list()))
    if states.is_empty():
        return rows
    ci = [
        c for c in states.columns
        if c.endswith(("_mean", "_ci95_low", "_ci95_high")) or c in ("ci_method", "is_steady_state")
    ]  # fmt: skip
    return rows.join(states.select("result_id", *ci), on="result_id", how="left")


def spread_text(row: dict, measure: str) -> str:
    low, high = row.get(f"{measure}_ci95_low"), row.get(f"{measure}_ci95_high")
    if low is None or high is None:
        return "no spread information"
    return f"{low:,.3f} to {high:,.3f}"


def shown(column: str, value: object) -> str:
    if column == "block_size_bytes" and value is not None:
        return bytes_label(int(value))  # type: ignore[call-overload]
    return display(value)


def side_by_side(pair: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Labels then measures (with the 95 % interval of each), one column per result."""
    a, b = pair.row(0, named=True), pair.row(1, named=True)
    fields = [c for c in LABELS + MEASURES if c in pair.columns]
    out = {
        "field": [charts.axis_title(c) if c in MEASURES else c for c in fields],
        names[0]: [shown(c, a[c]) for c in fields],
        names[1]: [shown(c, b[c]) for c in fields],
        "differs": ["yes" if a[c] != b[c] else "" for c in fields],
    }
    ci = [m for m in MEASURES if f"{m}_ci95_low" in pair.columns]
    out["field"] += [f"{charts.axis_title(m)}, 95 % CI" for m in ci]
    out[names[0]] += [spread_text(a, m) for m in ci]
    out[names[1]] += [spread_text(b, m) for m in ci]
    out["differs"] += [""] * len(ci)
    return pl.DataFrame(out)


def delta_columns(deltas: pl.DataFrame) -> list[str]:
    """What a delta row says: its keys, the deltas, their intervals and significance."""
    wanted = [c for c in DELTA_KEYS if c in deltas.columns]
    return wanted + [
        c for c in deltas.columns
        if c not in wanted and ("delta" in c or "ci95" in c or "signific" in c)
        and not c.endswith("_id")
    ]  # fmt: skip


def show_deltas(deltas: pl.DataFrame, what: str) -> None:
    st.markdown(f"**Deltas from `config_deltas`** ({what})")
    if "is_significant" not in deltas.columns:
        st.caption(
            "config_deltas carries no interval of the difference yet: no significance is "
            "shown (no spread information)."
        )
    ui.table(deltas.select(delta_columns(deltas)))


def compare_runs(results: pl.DataFrame) -> dict[str, str | None]:
    choices = provenance.result_choices(results)
    ids = list(choices)
    left, right = st.columns(2)
    with left:
        a = pick("a", "Run A", ids, 0, format_func=choices.get)
    with right:
        b = pick("b", "Run B", ids, 1, format_func=choices.get)
    if a is None or b is None or a == b:
        st.info("Pick two different runs.")
        return {"a": a, "b": b}
    pair = with_steady_state(
        pl.concat([results.filter(pl.col("result_id") == rid) for rid in (a, b)])
    )
    names = [f"A: {choices[a]}", f"B: {choices[b]}"]
    provenance.plot(
        compare_charts.pair_bars(
            pair,
            names=names,
            title="Run A and run B: whole-run figures, steady-state means with 95 % CI where known",
        ),
        "compare_runs",
        key="compare_runs_chart",
    )
    ui.reconstructed_note(pair)
    ui.table(side_by_side(pair, ["A", "B"]))
    deltas = queries_provenance.config_deltas_between(where, a, b)
    if deltas.is_empty():
        differing = [
            c for c in LABELS
            if c in pair.columns and c not in RUN_FACTS and pair[c].n_unique() > 1
        ]  # fmt: skip
        st.info(
            "These runs are not a one-label pair in `config_deltas` (they differ in: "
            + (", ".join(differing) or "free-form labels only")
            + "), so no change is attributed to one label and no significance is computed: "
            "the values stand side by side.",
            icon=":material/info:",
        )
    else:
        show_deltas(deltas, "the pair as the mart orders it: from = its baseline side")
    provenance.link_row([a, b])
    return {"a": a, "b": b}


def compare_groups(results: pl.DataFrame, column: str, testbed: str | None) -> dict:
    """Two testbeds or two profiles: every result of each on the workloads both ran."""
    values = sorted(results[column].drop_nulls().cast(pl.String).unique().to_list())
    left, right = st.columns(2)
    with left:
        a = pick("a", f"{column.capitalize()} A", values, 0)
    with right:
        b = pick("b", f"{column.capitalize()} B", values, 1)
    if a is None or b is None or a == b:
        st.info(f"Pick two different values of {column}.")
        return {"a": a, "b": b}
    rows = results.filter(pl.col(column).cast(pl.String).is_in([a, b]))
    rows = rows.with_columns(
        workload=pl.Series(
            charts.workload_labels(rows, without=("outstanding_io", "working_set")),
            dtype=pl.String,
        )
    )
    both = rows.group_by("workload").agg(pl.col(column).n_unique().alias("sides"))
    shared = both.filter(pl.col("sides") == 2)["workload"]
    rows = rows.filter(pl.col("workload").is_in(shared.implode()))
    if rows.is_empty():
        ui.no_data(f"workload run on both {a} and {b}")
        return {"a": a, "b": b}
    ui.reconstructed_note(rows)
    y = st.selectbox("Measure", Y_CHOICES, format_func=charts.axis_title, key="compare_y")
    hover = ["testbed", "profile", "working_set", "vm_count", "outstanding_io", "transport"]
    fig = compare_charts.group_points(
        rows.sort("read_pct", "block_size_bytes"), x="workload", y=y, group=column,
        title=f"{a} vs {b}: every result on the workloads both ran", hover=hover,
    )  # fmt: skip
    provenance.plot(fig, "compare_groups", key="compare_groups_chart")
    deltas = queries.config_deltas(where, filters)
    if column == "profile" and not deltas.is_empty():
        pairs = deltas.filter(
            (pl.col("dimension") == "profile")
            & (pl.col("testbed") == testbed)
            & pl.col("from_value").is_in([a, b])
            & pl.col("to_value").is_in([a, b])
        )
        if not pairs.is_empty():
            show_deltas(pairs, f"one row per pair of results that differ only in profile {a}/{b}")
    with ui.expander(f"{rows.height} results", name=f"compare_{column}") as box:
        if box.open:
            provenance.table(rows.select("result_id", "workload", *LABELS[:8], *MEASURES))
    return {"a": a, "b": b}


results = queries.workload_results(where, filters)
restore("compare", list(MODES))
st.session_state.setdefault(PARAMS["compare"], "runs")
mode = st.radio("Compare", list(MODES), format_func=MODES.get, horizontal=True,
                key=PARAMS["compare"])  # fmt: skip
if results.is_empty():
    ui.no_data("workload results")
    publish({"compare": mode})
    st.stop()
selection: dict[str, str | None] = {"compare": mode}
if mode == "runs":
    selection |= compare_runs(results)
elif mode == "testbeds":
    selection |= compare_groups(results, "testbed", None)
else:
    # Testbeds with at least two profiles: one profile has nothing to compare.
    profiled = results.filter(pl.col("profile").is_not_null())
    counts = profiled.group_by("testbed").agg(pl.col("profile").n_unique().alias("n"))
    testbeds = sorted(counts.filter(pl.col("n") > 1)["testbed"].to_list())
    testbed = pick("testbed", "Testbed", testbeds, 0)
    selection["testbed"] = testbed
    if testbed is not None:
        selection |= compare_groups(results.filter(pl.col("testbed") == testbed), "profile",
                                    testbed)  # fmt: skip
publish(selection)
