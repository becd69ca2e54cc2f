"""Data quality: the latest great-expectations results (`marts.data_quality_results`)."""

import pandas as pd
import streamlit as st

from app.lib import queries, ui

db_path, _ = ui.context()

results = queries.data_quality_results(db_path)
if results.empty:
    st.info("No validation has run yet (`python -m expectations` writes the results).")
    st.stop()

latest_run = results["run_at"].max() if "run_at" in results else None
latest = results[results["run_at"] == latest_run] if latest_run is not None else results
# success is NULL for a suite that was skipped (its table does not exist yet).
success = latest.get("success", pd.Series(pd.NA, index=latest.index)).astype("boolean")
failed = latest[success.eq(False).fillna(False)]
skipped = int(success.isna().sum())
# Suites are `<model>.constraints` (fail the run) or `<model>.alerts` (report only); the
# severity column may hold either word, singular or plural.
severity = failed.get("severity", pd.Series("constraint", index=failed.index))
is_constraint = severity.astype("string").str.lower().str.startswith(("constraint", "error"))
cols = st.columns(4)
cols[0].metric("Expectations checked", f"{len(latest) - skipped:,}")
cols[1].metric("Constraint failures", f"{int(is_constraint.fillna(True).sum()):,}")
cols[2].metric("Alerts", f"{int((~is_constraint.fillna(True)).sum()):,}")
cols[3].metric("Skipped", f"{skipped:,}", help="Suites whose table does not exist yet.")
st.caption(f"Latest run: {latest_run}")
if not failed.empty:
    st.markdown("**Failed expectations**")
    st.dataframe(failed, hide_index=True)
with st.expander("All results of the latest run"):
    st.dataframe(latest, hide_index=True)
    ui.download_csv(latest, "data_quality_results")
