"""Data quality: the latest great-expectations run, passed or failed.

The run comes from `<db stem>.validation.json` beside the main file: a version that failed
is never published, so the serving snapshot's `marts.data_quality_results` lacks its run.
Warehouses validated before the side file existed fall back to that mart.
"""

import polars as pl
import streamlit as st

from app.lib import queries, ui

where, _ = ui.context()
status = st.session_state.get("serving_status")
report = status.validation if status is not None else None

if report is not None:
    latest = queries.validation_outcomes(report)
else:
    latest = queries.data_quality_latest(where)
if latest.is_empty():
    st.info(
        "No validation has run yet: `python -m ingest publish` validates the warehouse and "
        "publishes it if every constraint holds (`python -m expectations` only validates)."
    )
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
run_at = latest["run_at"].max()
if constraints:
    st.error(
        f"The latest validation ({ui.when(run_at)}) FAILED: {constraints} constraint failures. "
        "That version was not published; "
        + (
            f"the dashboard shows the last version that passed (as of "
            f"{ui.when(status.snapshot_as_of_ns)})."
            if status is not None and status.snapshot is not None
            else "no version has passed yet."
        )
        + " Fix the data (or the load), then run `python -m ingest publish`.",
        icon=":material/error:",
    )
cols = st.columns(4)
cols[0].metric("Expectations checked", f"{latest.height - skipped:,}")
cols[1].metric("Constraint failures", f"{constraints:,}")
cols[2].metric("Alerts", f"{failed.height - constraints:,}")
cols[3].metric("Skipped", f"{skipped:,}", help="Suites whose table does not exist yet.")
st.caption(f"Latest run: {ui.when(run_at)}")
if not failed.is_empty():
    st.markdown("**Failed expectations**")
    ui.table(failed)
with ui.expander("All results of the latest run", name="data_quality") as box:
    if box.open:
        ui.table(latest)
        ui.download_csv(latest, "data_quality_results")
