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

from app.lib import charts, notices, provenance, queries, queries_provenance, selection, ui
from app.lib.charts import compare as compare_charts
from app.lib.url_state import UrlState
from app.lib.views import compare as view

where, filters = ui.context()
url = UrlState(view.PARAMS)


def pick(param: str, label: str, options: list[str], index: int, **kwargs: object) -> str | None:
    """A selector the URL can set (a link's value it does not offer is named, not silently
    replaced); `index` is its default on a first view."""
    notices.show(notices.link_not_offered_notice(param, url.restore(param, options)))
    return url.select(param, label, options, index=index, **kwargs)


def pick_two(options: list[str], labels: tuple[str, str], **kwargs: object) -> tuple:
    left, right = st.columns(2)
    with left:
        a = pick("a", labels[0], options, 0, **kwargs)
    with right:
        b = pick("b", labels[1], options, 1, **kwargs)
    return a, b


def show_deltas(deltas: pl.DataFrame, what: str) -> None:
    st.markdown(f"**Deltas from `config_deltas`** ({what})")
    if "is_significant" not in deltas.columns:
        st.caption(
            "config_deltas carries no interval of the difference yet: no significance is "
            "shown (no spread information)."
        )
    ui.table(view.readable_differences(deltas.select(view.delta_columns(deltas))))


def compare_runs(results: pl.DataFrame) -> dict[str, str | None]:
    choices = provenance.result_choices(results)
    a, b = pick_two(list(choices), ("Run A", "Run B"), format_func=choices.get)
    if a is None or b is None or a == b:
        st.info("Pick two different runs.")
        return {"a": a, "b": b}
    pair = view.pair(results, a, b, queries_provenance.steady_states(where, (a, b)))
    title = "Run A and run B: whole-run figures, steady-state means with 95 % CI where known"
    fig = compare_charts.pair_bars(pair, names=view.pair_names(pair), title=title)
    provenance.plot(fig, "compare_runs", key="compare_runs_chart", points=pair)
    ui.reconstructed_note(pair)
    ui.latency_kind_note(pair)
    ui.table(view.side_by_side(pair, ["A", "B"]))
    deltas = queries_provenance.config_deltas_between(where, a, b)
    if deltas.is_empty():
        st.info(view.unpaired_text(pair), icon=":material/info:")
    else:
        show_deltas(deltas, "the pair as the mart orders it: from = its baseline side")
    provenance.link_row([a, b])
    return {"a": a, "b": b}


def compare_groups(results: pl.DataFrame, column: str, testbed: str | None) -> dict:
    """Two testbeds or two profiles: every result of each on the workloads both ran."""
    name = column.capitalize()
    a, b = pick_two(view.group_values(results, column), (f"{name} A", f"{name} B"))
    if a is None or b is None or a == b:
        st.info(f"Pick two different values of {column}.")
        return {"a": a, "b": b}
    rows = view.on_shared_workloads(results, column, a, b)
    if rows.is_empty():
        ui.no_data(f"workload run on both {a} and {b}")
        return {"a": a, "b": b}
    ui.reconstructed_note(rows)
    y = pick("measure", "Measure", view.Y_CHOICES, 0, format_func=charts.axis_title)
    rows = rows.sort("read_pct", "block_size_bytes")
    fig = compare_charts.group_points(
        rows, x="workload", y=y, group=column, hover=view.HOVER,
        title=f"{a} vs {b}: every result on the workloads both ran",
    )  # fmt: skip
    provenance.plot(fig, "compare_groups", key="compare_groups_chart", points=rows)
    deltas = queries.config_deltas(where, filters)
    pairs = view.profile_pairs(deltas, testbed, a, b) if column == "profile" else deltas.clear()
    if not pairs.is_empty():
        show_deltas(pairs, f"one row per pair of results that differ only in profile {a}/{b}")
    with ui.expander(charts.plural(rows.height, "result"), name=f"compare_{column}") as box:
        if box.open:
            provenance.table(view.group_table(rows))
    return {"a": a, "b": b, "measure": y}


results = queries.workload_results(where, filters)
mode = pick("compare", "Compare", list(view.MODES), 0, widget=st.radio,
            format_func=view.MODES.get, horizontal=True)  # fmt: skip
if results.is_empty():
    ui.no_data("workload results")
    url.publish({"compare": mode})
    st.stop()
chosen: dict[str, str | None] = {"compare": mode}
if mode == "runs":
    chosen |= compare_runs(results)
elif mode == "testbeds":
    chosen |= compare_groups(results, "testbed", None)
else:  # testbeds with at least two profiles: one profile has nothing to compare
    testbed = pick("testbed", "Testbed", selection.several(results, "testbed", "profile"), 0)
    chosen["testbed"] = testbed
    if testbed is not None:
        part = results.filter(pl.col("testbed") == testbed)
        chosen |= compare_groups(part, "profile", testbed)
url.publish(chosen)
