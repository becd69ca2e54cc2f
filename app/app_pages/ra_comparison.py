"""RA comparison: IOPS bars and latency lines per read mix, a testbed against its own
published figures (or another document's). Every bar is one result or one printed figure."""

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, selection, ui

where, filters = ui.context()

st.markdown(
    "IOPS (bars) and average latency (lines, right axis) across read mixes, one colour per "
    "profile, cache and capacity working sets side by side, as in the Micron vSAN RA. "
    "Published figures are hatched bars and dashed lines. Every bar is one result or one "
    "printed figure: what else varies on the testbed is the *configuration* selector."
)

points = queries.ra_points(where, filters)
measured = points.filter(pl.col("origin") == "measured") if len(points) else points
published = points.filter(pl.col("origin") == "published") if len(points) else points


def testbeds(rows: pl.DataFrame) -> list[str]:
    return sorted(rows["testbed"].drop_nulls().unique().to_list()) if len(rows) else []


own_testbeds, ref_testbeds = testbeds(measured), testbeds(published)
# Open on something meaningful: the first testbed with results AND its own published figures.
both = [t for t in own_testbeds if t in ref_testbeds]
labelled = [t for t in own_testbeds if t != queries.UNLABELLED]
first = (both or labelled or own_testbeds or [None])[0]
left, mid = st.columns(2)
own = left.selectbox(
    "Testbed",
    own_testbeds,
    index=own_testbeds.index(first) if first in own_testbeds else None,
    placeholder="no results",
)
ref_options = ["(none)", *ref_testbeds]
ref = mid.selectbox(
    "Published figures of",
    ref_options,
    index=ref_options.index(own) if own in ref_testbeds else 0,
    help="A document's own figures sit under the configurations of its testbed they do not "
    "contradict; another document's figures are shown as printed.",
)

own_points = measured.filter(pl.col("testbed") == own) if own else measured.clear()
configurations = sorted(selection.options(own_points, "run_configuration"))
if ref == own and own:
    # prefer a configuration the document printed figures for
    printed = published.filter(pl.col("testbed") == own)["run_configuration"].drop_nulls()
    configurations.sort(key=lambda c: c not in set(printed.to_list()))
chosen = configurations[:1]
if len(configurations) > 1:
    chosen = st.multiselect(
        "Configuration (what else varies on this testbed; several = one series each)",
        configurations,
        default=configurations[:1],
        format_func=lambda c: c or "(nothing else varies)",
    )

shown = [own_points.filter(pl.col("run_configuration").is_in(chosen))] if own else []
if ref != "(none)":
    doc = published.filter(pl.col("testbed") == ref)
    if ref == own:
        unmatched = doc.filter(pl.col("run_configuration").is_null()).height
        if unmatched:
            st.caption(
                f"{unmatched} printed point(s) of this document contradict every run's "
                "configuration and are not drawn: see the Published vs measured page."
            )
        doc = doc.filter(pl.col("run_configuration").is_in(chosen))
    else:  # another testbed's figures: each printed point once
        doc = doc.unique(["iops_figure_id", "latency_figure_id"], keep="first", maintain_order=True)
        # keep the document's own configuration in the series: two of its figures at one
        # read mix (e.g. Table 3's TCP and RDMA) stay two bars
        doc = doc.with_columns(
            run_configuration=pl.format(
                "{} (published) {}", pl.lit(ref), pl.col("run_configuration").fill_null("")
            )
        )
    shown.append(doc)
data = pl.concat(shown, how="diagonal_relaxed") if shown else pl.DataFrame()

if data.is_empty():
    ui.no_data(
        "workload results or published IOPS figures",
        "Load results with `python -m ingest load`, then `python -m ingest build` and "
        "`python -m ingest publish` (validates, then publishes).",
    )
else:
    ui.reconstructed_note(own_points)
    title = " vs ".join(t for t in (own, None if ref in ("(none)", own) else ref) if t)
    suffix = " (with its published figures)" if ref == own else ""
    provenance.plot(
        charts.ra_comparison(data, title=f"IOPS and latency by read mix: {title}{suffix}"),
        "ra_comparison",
        key="ra_comparison",
    )
    st.metric("Peak IOPS (your testbed)", ui.fmt(own_points["iops"].max(), ",.0f"))
    columns = [
        c
        for c in (
            "origin", "result_id", "iops_figure_id", "latency_figure_id", "published_source",
            "run_configuration", "working_set", "profile", "read_pct", "run_ordinal", "iops",
            "avg_latency_ms",
        )
        if c in data.columns
    ]  # fmt: skip
    label = "Data points (one row per result or printed figure)"
    with ui.expander(label, name="ra_comparison") as box:
        if box.open:
            provenance.table(data.select(columns))
            ui.download_csv(data.select(columns), "ra_comparison")
