"""Data quality: the latest great-expectations results (`marts.data_quality_results`)."""

import polars as pl
import streamlit as st

from app.lib import queries, ui

db_path, _ = ui.context()

latest = queries.data_quality_latest(db_path)
if latest.is_empty():
    st.info("No validation has run yet (`python -m expectations` writes the results).")
    st.stop()

# success is NULL for a suite that was skipped (its table does not exist yet).
failed = latest.filter(pl.col("success").not_())
skipped = latest["success"].null_count()
# Suites are `<model>.constraints` (fail the run) or `<model>.alerts` (report only); the
# severity column may hold either word, singular or plural. No severity counts as constraint.
is_constraint = (
    pl.col("severity").str.to_lowercase().str.starts_with("constraint")
    | pl.col("severity").str.to_lowercase().str.starts_with("error")
).fill_null(True)
constraints = failed.filter(is_constraint).height
cols = st.columns(4)
cols[0].metric("Expectations checked", f"{latest.height - skipped:,}")
cols[1].metric("Constraint failures", f"{constraints:,}")
cols[2].metric("Alerts", f"{failed.height - constraints:,}")
cols[3].metric("Skipped", f"{skipped:,}", help="Suites whose table does not exist yet.")
st.caption(f"Latest run: {latest['run_at'].max()}")
if not failed.is_empty():
    st.markdown("**Failed expectations**")
    st.dataframe(failed, hide_index=True)
with st.expander("All results of the latest run"):
    st.dataframe(latest, hide_index=True)
    ui.download_csv(latest, "data_quality_results")
