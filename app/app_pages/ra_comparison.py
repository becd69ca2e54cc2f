"""RA comparison: IOPS bars and latency lines per read mix, your runs against published RAs."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

st.markdown(
    "IOPS (bars) and average latency (lines, right axis) across read mixes, one bar group per "
    "profile, cache and capacity working sets side by side, as in the Micron vSAN RA. "
    "Published figures are hatched bars and dashed lines."
)

points = queries.ra_points(db_path, filters)
measured = queries.workload_results(db_path, filters)


def testbeds_of(origin: str) -> list[str]:
    if points.is_empty():
        return []
    rows = points.filter(pl.col("origin") == origin)
    return sorted(rows["testbed"].drop_nulls().unique().to_list())


left, mid, right = st.columns(3)
own_testbeds = testbeds_of("measured")
ref_testbeds = testbeds_of("published")
# A named testbed first: the unlabelled results mix unrelated runs.
labelled = [t for t in own_testbeds if t != queries.UNLABELLED]
own = left.selectbox(
    "Your testbed",
    own_testbeds,
    index=own_testbeds.index(labelled[0]) if labelled else 0 if own_testbeds else None,
    placeholder="no results",
)
# The documents' own figures for the chosen testbed where there are some, else the first.
ref_index = 1 + ref_testbeds.index(own) if own in ref_testbeds else 1 if ref_testbeds else 0
ref = mid.selectbox("Published reference", ["(none)", *ref_testbeds], index=ref_index)

own_points = (
    points.filter((pl.col("origin") == "measured") & (pl.col("testbed") == own))
    if own
    else pl.DataFrame()
)
sizes = sorted(own_points["block_size_bytes"].drop_nulls().unique()) if own else []
size = right.selectbox(
    "Block size",
    sizes,
    index=sizes.index(4096) if 4096 in sizes else 0 if sizes else None,
    format_func=lambda b: f"{int(b):,} bytes",
    placeholder="any",
)

# The chosen block size; a published figure without one applies to every size.
chosen_size = pl.col("block_size_bytes").is_null() if size is None else (
    pl.col("block_size_bytes") == size
)  # fmt: skip
shown = [own_points.filter(chosen_size)] if own else []
if ref != "(none)":
    published = points.filter((pl.col("origin") == "published") & (pl.col("testbed") == ref))
    if size is not None:
        published = published.filter(pl.col("block_size_bytes").is_null() | chosen_size)
    shown.append(published)
data = pl.concat(shown) if shown else pl.DataFrame()

if data.is_empty():
    ui.no_data(
        "workload results or published IOPS figures",
        "Load results with `python -m ingest load`, then `python -m ingest build` and "
        "`python -m ingest publish` (validates, then publishes).",
    )
else:
    own_results = measured.filter(pl.col("testbed") == own) if own else measured.clear()
    ui.reconstructed_note(own_results)
    title = " vs ".join(t for t in (own, None if ref == "(none)" else ref) if t)
    ui.plot(
        charts.ra_comparison(data, title=f"IOPS and latency by read mix: {title}"), "ra_comparison"
    )
    st.metric("Peak IOPS (your testbed)", ui.fmt(own_results["iops"].max(), ",.0f"))
    columns = ["origin", "working_set", "profile", "read_pct", "iops", "avg_latency_ms"]
    with st.expander("Data points"):
        st.dataframe(data.select(columns), hide_index=True)
        ui.download_csv(data.select(columns), "ra_comparison")
