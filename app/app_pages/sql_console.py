"""SQL console: one read-only SELECT on a locked-down connection, downloadable as CSV.

The query runs in a child process (warehouse.console); session state keeps only the capped
result it returns, so a large result cannot grow the server through the table or the CSV."""

import streamlit as st

from app.lib import db, queries, ui
from warehouse import console as sql_console

where, _ = ui.context()

st.caption(
    f"One `SELECT` or `WITH` query over `marts.*` (and `data_quality.*`) with DuckDB's "
    f"analysis functions; read-only, no file, catalog, setting or network access. Stopped after "
    f"{sql_console.DEFAULT_TIMEOUT_S:g} s; at most {sql_console.DEFAULT_MAX_ROWS:,} rows and "
    f"{sql_console.DEFAULT_MAX_BYTES / 2**20:g} MB, text cut at "
    f"{sql_console.DEFAULT_MAX_CELL_CHARS:,} characters per cell. "
    "The `marts` schema is the stable interface."
)
with ui.expander("Tables in `marts`", name="marts_tables") as box:
    if box.open:
        tables = queries.marts_columns(where)
        if not tables:
            st.write("No marts yet.")
        for table, columns in tables.items():
            st.markdown(f"`marts.{table}`: " + ", ".join(f"`{c}`" for c in columns))

sql = st.text_area(
    "Query",
    value="select testbed, profile, read_pct, iops, avg_latency_ms\n"
    "from marts.fct_workload_results\norder by iops desc\nlimit 20",
    height=160,
    key="sql_text",
)
if st.button("Run", type="primary", icon=":material/play_arrow:", key="sql_run"):
    try:
        st.session_state["sql_result"] = sql_console.run_query(where, sql)
        st.session_state.pop("sql_error", None)
    except (sql_console.QueryRejected, db.WarehouseUnavailable) as exc:
        st.session_state["sql_error"] = str(exc)
        st.session_state.pop("sql_result", None)

if "sql_error" in st.session_state:
    st.error(st.session_state["sql_error"], icon=":material/block:")
result = st.session_state.get("sql_result")
if result is not None:
    note = f"{len(result.frame):,} rows in {result.elapsed_s:.2f} s"
    st.caption(note)
    for cut in result.notes:  # what the row, byte and cell caps left out
        st.warning(cut, icon=":material/content_cut:")
    st.dataframe(result.frame, hide_index=True)
    st.download_button(
        "Download CSV",
        sql_console.to_csv(result.frame),
        file_name="query.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="sql_csv",
    )
