"""Capacity: dedupe/compression ratios, policy capacity multipliers, usable-to-raw."""

import pandas as pd
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

st.caption(
    "Ratio = logical used before dedupe and compression / physical used after. "
    "Usable-to-raw = ratio / capacity multiplier of the policy (RAID-1 FTT=1: 2x)."
)
ratios = queries.dedupe_ratios(db_path, filters.testbed)
if ratios.empty:
    ui.no_data("capacity observations", "Load vSAN capacity captures (`vsan_capacity`).")
else:
    ui.reconstructed_note(ratios)
    latest = ratios.sort_values("captured_at").groupby("testbed").tail(1)
    for _, row in latest.iterrows():
        captured = "time unknown" if pd.isna(row["captured_at"]) else str(row["captured_at"])[:16]
        st.markdown(f"**{row['testbed']}** · captured {captured} UTC")
        cols = st.columns(4)
        cols[0].metric("Dedupe & compression", ui.fmt(row["dedupe_compression_ratio"], ".2f", "x"))
        cols[1].metric(
            "Capacity multiplier",
            ui.fmt(row["capacity_multiplier"], ".2f", "x"),
            help=f"{row['ftm']} FTT={row['ftt']}",
        )
        cols[2].metric("Usable to raw", ui.fmt(row["usable_to_raw_ratio"], ".2f", "x"))
        saved = (row["logical_used_bytes"] - row["physical_used_bytes"]) / 1e12
        cols[3].metric("Saved", ui.fmt(saved, ",.2f", " TB"))
    ui.plot(charts.capacity_bars(ratios), "capacity")
    with st.expander("All observations"):
        st.dataframe(ratios, hide_index=True)
        ui.download_csv(ratios, "dedupe_ratios")

st.subheader("Published capacity figures")
published = queries.published_results(
    db_path,
    filters.testbed,
    (
        "dedupe_compression_ratio",
        "capacity_multiplier",
        "usable_to_raw_ratio",
        "capacity_used_before_tb",
        "capacity_used_after_tb",
        "capacity_overhead_pct",
    ),
)
if published.empty:
    ui.no_data("published capacity figures")
else:
    cols = [
        c
        for c in (
            "source_document",
            "testbed",
            "metric",
            "value",
            "unit",
            "value_as_printed",
            "note",
        )
        if c in published
    ]
    st.dataframe(published[cols], hide_index=True)
