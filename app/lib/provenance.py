"""From any bar, point or table row to its run, and from a run to the files behind it.

The run explorer reads `?result_id=<id>` from the URL (st.query_params), so a link is plain
text a table cell, a chart's selection or a shared URL can carry. Charts put each point's
`result_id` in the trace's `customdata`; `plot` shows links for the points a user clicks or
selects. Rows without a result (published figures) have no link.

The run explorer's provenance sections (`show_source_files`, `show_label_origins`,
`show_captures`) say where a result comes from: its files, the tools that wrote them, where each
label came from, and which host captures its host CPU comes from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from urllib.parse import quote

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

RUN_EXPLORER = "app_pages/run_explorer.py"
# The run explorer's URL path: st.navigation names a page after its file.
RUN_EXPLORER_URL = "run_explorer"
PARAM = "result_id"
LINK_COLUMN = "run"
LINK_TEXT = "open in run explorer"
# More selected points than this get a table instead of a row of links.
MAX_LINKS = 12


def run_url(result_id: str) -> str:
    """The run explorer's URL for one result, relative to the app (works behind a proxy)."""
    return f"{RUN_EXPLORER_URL}?{PARAM}={quote(str(result_id), safe='')}"


def with_run_links(df: pl.DataFrame, column: str = PARAM) -> pl.DataFrame:
    """`df` with a `run` column: the run explorer URL of each row's `column` (NULL where the
    row has no result)."""
    if column not in df.columns:
        return df
    links = [None if rid is None else run_url(rid) for rid in df[column].to_list()]
    return df.with_columns(pl.Series(LINK_COLUMN, links, dtype=pl.String))


def link_config(column: str = LINK_COLUMN) -> dict:
    """st.dataframe `column_config` rendering the `run` column as a link."""
    return {column: st.column_config.LinkColumn("Run", display_text=LINK_TEXT)}


def table(df: pl.DataFrame, *, column: str = PARAM, **kwargs: object) -> None:
    """A table of `df` (ui.table), with an "open in run explorer" link per row that has a
    result."""
    shown = with_run_links(df, column)
    config = {**link_config(), **kwargs.pop("column_config", {})}  # type: ignore[dict-item]
    if LINK_COLUMN in shown.columns:
        shown = shown.select(LINK_COLUMN, pl.exclude(LINK_COLUMN))
    ui.table(shown, column_config=config, **kwargs)


def link_row(result_ids: Iterable[str], label: str = LINK_TEXT) -> None:
    """One "open in run explorer" link per result (in the app: the page switches in place)."""
    ids = list(dict.fromkeys(rid for rid in result_ids if rid))
    if len(ids) > MAX_LINKS:
        table(pl.DataFrame({PARAM: ids}))
        return
    for rid in ids:
        st.page_link(
            RUN_EXPLORER,
            label=f"{label}: `{rid[:12]}`",
            query_params={PARAM: rid},
            icon=":material/search:",
        )


def selected_results(points: list[dict]) -> list[str]:
    """The result ids of selected points (plotly_view.show): their customdata's first value."""
    found = []
    for point in points:
        data = point.get("customdata")
        value = data[0] if isinstance(data, list | tuple) and data else data
        if isinstance(value, str) and value:
            found.append(value)
    return found


def plot(fig: go.Figure, name: str, *, key: str, points: pl.DataFrame | None = None) -> None:
    """A chart whose points lead to their runs: clicking (or box/lasso selecting) points
    whose trace carries their result ids as `customdata` shows their run explorer links.
    `points`: as ui.plot's."""
    chosen = selected_results(ui.plot(fig, name, key=key, selectable=True, points=points))
    if chosen:
        link_row(chosen)
    else:
        st.caption("Click a point or bar to open its run in the run explorer.")


def describe_result(row: dict) -> str:
    """A result as a person picks it: testbed · profile · workload · start time."""
    started = str(row["started_at"])[:16] if row.get("started_at") is not None else "?"
    testbed = row.get("testbed") or "(no testbed label)"
    profile = row.get("profile") or "no profile"
    return f"{testbed} · {profile} · {charts.workload_label(row)} · {started}"


def result_choices(results: pl.DataFrame) -> dict[str, str]:
    """result_id -> label for a selector; Streamlit tells options apart by their label, so a
    repeated one gets the result's short id."""
    labels = {row[PARAM]: describe_result(row) for row in results.iter_rows(named=True)}
    repeated = {label for label, n in Counter(labels.values()).items() if n > 1}
    return {rid: f"{lb} · {rid[:8]}" if lb in repeated else lb for rid, lb in labels.items()}


# --- Where a result comes from (the run explorer's provenance sections) ---------------------

# Source-file columns shown, in order: `path` is relative to the folder the result's files
# were found in (relative_paths); the full paths are in an expander.
# `path_in_root`: the path within the folder given to `ingest load` (NULL for files loaded
# before loads recorded it), the path the report's provenance appendix prints.
FILE_COLUMNS = [
    "file_role", "path", "path_in_root", "source_format", "tool_version", "parser_version",
    "hcibench_case", "size_bytes", "sha256", "loaded_at",
]  # fmt: skip
# More files than this: the relative paths go into an expander too.
PATHS_SHOWN = 12
FULL_PATHS = "Full paths on this machine"
# Outputs first, then the file the labels were read with, then the rest of the test case.
ROLE_ORDER = {"output": 1, "labels": 2, "test case": 3}


def files_in_order(files: pl.DataFrame | None) -> pl.DataFrame | None:
    """A result's source files by role (ROLE_ORDER), then path (None: no mart yet)."""
    if files is None or files.is_empty():
        return files
    role = pl.col("file_role").replace_strict(ROLE_ORDER, default=9, return_dtype=pl.Int8)
    return files.with_columns(role_order=role).sort("role_order", "source_path").drop("role_order")


def relative_paths(paths: list[str]) -> tuple[str, list[str]]:
    """The folder holding every path, and each path relative to that folder's parent (so
    its name stays: `run1-default/fio-1.json`, as `ingest load` prints a path under its PATH
    argument). fct_result_source_files does not carry the root `ingest load` was given, so
    the folder is the deepest one the paths share; a single file keeps its folder's name."""
    if not paths:
        return "", []
    split = [p.split("/") for p in paths]
    shared: list[str] = []
    for parts in zip(*(s[:-1] for s in split), strict=False):
        if len(set(parts)) > 1:
            break
        shared.append(parts[0])
    keep = max(len(shared) - 1, 0)  # the shared folder's own name stays in every path
    return "/".join(shared), ["/".join(s[keep:]) for s in split]


def with_relative_paths(df: pl.DataFrame, column: str = "source_path") -> tuple[str, pl.DataFrame]:
    """`df` with a `path` column: `column` relative to the folder its rows share."""
    folder, relative = relative_paths(df[column].to_list())
    return folder, df.with_columns(path=pl.Series(relative, dtype=pl.String))


def tools_line(files: pl.DataFrame) -> str:
    """The tools (with their versions and parser versions) that wrote a result's files."""
    tools = files.filter(pl.col("file_role") != "test case").unique(
        ["source_format", "tool_version", "parser_version"], maintain_order=True
    )
    return (
        "**Tool** "
        + "; ".join(
            f"{r['source_format']} {r['tool_version'] or '(version not printed)'}, "
            f"parser version {r['parser_version']}"
            for r in tools.iter_rows(named=True)
        )
        + f" · {charts.plural(files.height, 'file')}"
    )


def show_full_paths(folder: str, paths: list[str]) -> None:
    """The full paths on demand (an expander), under the folder the shown paths are in."""
    with st.expander(FULL_PATHS):
        st.caption(f"Shown relative to `{folder or '/'}`.")
        st.text("\n".join(paths))


def show_source_files(files: pl.DataFrame | None) -> None:
    """The tools, every path relative to the result's folder (the full paths in an expander)
    and the files table (fct_result_source_files rows)."""
    st.subheader("Where this result comes from")
    if files is None:
        st.caption("The provenance mart `fct_result_source_files` is not built yet: `dbt build`.")
        return
    if files.is_empty():
        st.warning("No source file is recorded for this result.", icon=":material/warning:")
        return
    files = files_in_order(files)
    assert files is not None
    st.markdown(tools_line(files))
    folder, files = with_relative_paths(files)
    paths = "\n".join(files["path"].to_list())
    if files.height <= PATHS_SHOWN:
        st.text(paths)
    else:
        with st.expander(f"Paths ({files.height} files)"):
            st.text(paths)
    show_full_paths(folder, files["source_path"].to_list())
    ui.table(
        files.select([c for c in FILE_COLUMNS if c in files.columns]),
        column_config={
            "path": st.column_config.TextColumn("Path", width="large"),
            "path_in_root": st.column_config.TextColumn("Path in the load folder"),
        },
    )


def show_label_origins(origins: pl.DataFrame | None, where: str, result_id: str) -> None:
    """Each label and workload value of a result with where it came from
    (fct_result_label_origins); the bare labels while that mart is not built."""
    st.markdown("**Labels and workload, and where each value came from**")
    if origins is None:
        st.json(queries.result_labels(where, result_id))
        return
    ui.table(
        origins.sort("origin", "label_key").select(
            "label_key", "label_value", "origin", "origin_detail"
        ),
        column_config={"origin_detail": st.column_config.TextColumn(width="large")},
    )


def show_captures(section: tuple[pl.DataFrame, str] | None) -> None:
    """The host captures (esxtop, vSAN Observer, vSAN performance service) with samples in the
    result's run window: which are attached and which were left out and why, under a line
    that says so (views.run_explorer.captures_section of fct_result_captures). Nothing when
    there are none."""
    if section is None:
        return
    shown, summary = section
    st.subheader("Host captures in the run window")
    st.caption(summary)
    folder, shown = with_relative_paths(shown)
    ui.table(
        shown.drop("source_path"),
        column_config={
            "left_out_reason": st.column_config.TextColumn("Left out because", width="large"),
            "path": st.column_config.TextColumn("Path", width="large"),
        },
    )
    show_full_paths(folder, shown["source_path"].to_list())
