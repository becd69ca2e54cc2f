"""Capacity: dedupe/compression ratios, policy capacity multipliers, usable-to-raw."""

import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

PUBLISHED_METRICS = (
    "dedupe_compression_ratio",
    "capacity_multiplier",
    "usable_to_raw_ratio",
    "capacity_used_before_tb",
    "capacity_used_after_tb",
    "capacity_overhead_pct",
)
PUBLISHED_COLUMNS = ["source_document", "testbed", "metric", "value", "unit", "value_as_printed"]

st.caption(
    "Ratio = logical used before dedupe and compression / physical used after. "
    "Usable-to-raw = ratio / capacity multiplier of the policy (RAID-1 FTT=1: 2x)."
)
ratios = queries.dedupe_ratios(db_path, filters)
if ui.has_data(ratios, "capacity observations", "Load vSAN capacity captures (`vsan_capacity`)."):
    for row in queries.latest_dedupe_ratios(db_path, filters).iter_rows(named=True):
        captured = row["captured_at"]
        st.markdown(
            f"**{row['testbed']}** · captured "
            + ("time unknown" if captured is None else str(captured)[:16])
            + " UTC"
        )
        cols = st.columns(4)
        cols[0].metric("Dedupe & compression", ui.fmt(row["dedupe_compression_ratio"], ".2f", "x"))
        cols[1].metric(
            "Capacity multiplier",
            ui.fmt(row["capacity_multiplier"], ".2f", "x"),
            help=f"{row['ftm']} FTT={row['ftt']}",
        )
        cols[2].metric("Usable to raw", ui.fmt(row["usable_to_raw_ratio"], ".2f", "x"))
        logical, physical = row["logical_used_bytes"], row["physical_used_bytes"]
        saved = None if logical is None or physical is None else (logical - physical) / 1e12
        cols[3].metric("Saved", ui.fmt(saved, ",.2f", " TB"))
    ui.plot(charts.capacity_bars(ratios), "capacity")
    with st.expander("All observations"):
        st.dataframe(ratios, hide_index=True)
        ui.download_csv(ratios, "dedupe_ratios")

st.subheader("Published capacity figures")
published = queries.published_results(db_path, filters.testbed, PUBLISHED_METRICS)
if published.is_empty():
    ui.no_data("published capacity figures")
else:
    st.dataframe(published.select([*PUBLISHED_COLUMNS, "note"]), hide_index=True)
