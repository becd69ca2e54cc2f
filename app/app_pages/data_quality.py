"""Data quality: the latest great-expectations run, passed or failed.

The run comes from `<db stem>.validation.json` beside the main file: a version that failed
is never published, so the serving snapshot's `marts.data_quality_results` lacks its run.
Warehouses validated before the side file existed fall back to that mart.
"""

import streamlit as st

from app.lib import notices, queries, ui
from app.lib.views import data_quality as view

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

run = view.summary(latest)
notices.show(notices.validation_failed_notice(run.run_at, run.constraints, status))
cols = st.columns(4)
cols[0].metric("Expectations checked", f"{run.checked:,}")
cols[1].metric("Constraint failures", f"{run.constraints:,}")
cols[2].metric("Alerts", f"{run.alerts:,}")
cols[3].metric("Skipped", f"{run.skipped:,}", help="Suites whose table does not exist yet.")
st.caption(f"Latest run: {notices.when(run.run_at)}")
if not run.failed.is_empty():
    st.markdown("**Failed expectations**")
    ui.table(run.failed)
with ui.expander("All results of the latest run", name="data_quality") as box:
    if box.open:
        ui.table(latest)
        ui.download_csv(latest, "data_quality_results")
