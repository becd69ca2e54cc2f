"""RA comparison: IOPS bars and latency lines per read mix, your runs against published RAs."""

import pandas as pd
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()
POINT_KEYS = ["working_set", "profile", "read_pct"]

st.markdown(
    "IOPS (bars) and average latency (lines, right axis) across read mixes, one bar group per "
    "profile, cache and capacity working sets side by side, as in the Micron vSAN RA. "
    "Published figures are hatched bars and dashed lines."
)

measured = queries.workload_results(db_path, filters)
published = queries.published_results(db_path, (), ("iops", "avg_latency_ms"))

left, mid, right = st.columns(3)
own_testbeds = sorted(measured["testbed"].dropna().unique()) if not measured.empty else []
ref_testbeds = sorted(published["testbed"].dropna().unique()) if not published.empty else []
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

own_rows = measured[measured["testbed"] == own] if own else measured.iloc[0:0]
sizes = sorted(own_rows["block_size_bytes"].dropna().unique()) if not own_rows.empty else []
size = right.selectbox(
    "Block size",
    sizes,
    index=sizes.index(4096) if 4096 in sizes else 0 if sizes else None,
    format_func=lambda b: f"{int(b):,} bytes",
    placeholder="any",
)

points = []
if not own_rows.empty:
    part = own_rows if size is None else own_rows[own_rows["block_size_bytes"] == size]
    agg = part.groupby(POINT_KEYS, dropna=False)[["iops", "avg_latency_ms"]].mean().reset_index()
    points.append(agg.assign(origin="measured"))
if ref != "(none)" and not published.empty:
    pub = published[published["testbed"] == ref]
    if size is not None and "block_size_bytes" in pub:
        pub = pub[pub["block_size_bytes"].isna() | (pub["block_size_bytes"] == size)]
    pub = pub.dropna(subset=["read_pct"])
    wide = pub.pivot_table(
        index=POINT_KEYS, columns="metric", values="value", aggfunc="mean", dropna=False
    ).reset_index()
    if "iops" in wide:
        points.append(
            wide.reindex(columns=[*POINT_KEYS, "iops", "avg_latency_ms"]).assign(origin="published")
        )
data = pd.concat(points, ignore_index=True) if points else pd.DataFrame()

if data.empty:
    ui.no_data(
        "workload results or published IOPS figures",
        "Load results with `python -m ingest load` and run `dbt build`.",
    )
else:
    ui.reconstructed_note(own_rows)
    title = " vs ".join(t for t in (own, None if ref == "(none)" else ref) if t)
    ui.plot(
        charts.ra_comparison(data, title=f"IOPS and latency by read mix: {title}"), "ra_comparison"
    )
    st.metric(
        "Peak IOPS (your testbed)",
        f"{own_rows['iops'].max():,.0f}" if not own_rows.empty else "n/a",
    )
    with st.expander("Data points"):
        st.dataframe(data, hide_index=True)
        ui.download_csv(data, "ra_comparison")
