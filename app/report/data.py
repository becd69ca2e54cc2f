"""What a report shows: every mart row of one testbed (and one document's printed figures), read
once from one version of the warehouse into polars frames.

A mart is read when the version has it; rows are chosen by the mart's own key columns, in this
order: `testbed`, `testbed_id` (through `dim_testbeds`), `result_id` (the testbed's results),
`sweep_id` (the testbed's sweeps). Every frame is sorted on stable keys so two reports of one
version are the same bytes. Nothing here draws or formats.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import duckdb
import polars as pl

# Every mart a report may show, with the columns its rows are sorted by (those it has).
MARTS: dict[str, tuple[str, ...]] = {
    "fct_workload_results": ("started_at", "result_id"),
    "testbed_data_origins": ("testbed", "data_origin"),
    "fct_result_labels": ("result_id", "label_key"),
    "dim_testbeds": ("testbed",),
    "dim_storage_policies": ("nodes", "ftm", "ftt"),
    "ra_comparison_points": (
        "origin", "run_configuration", "working_set", "profile", "read_pct", "run_ordinal",
        "result_id", "figure_id",
    ),
    "scaling_points": ("nodes", "result_id"),
    "profile_latency_deltas": ("working_set", "read_pct", "profile", "first_result_id"),
    "config_deltas": ("dimension", "from_value", "to_value", "working_set", "read_pct"),
    "transport_cpu_efficiency": ("read_pct", "block_size_bytes", "tcp_result_id"),
    "dedupe_ratios": ("captured_at", "capacity_observation_id"),
    "sweeps": ("axis", "sweep_id"),
    "sweep_points": ("sweep_id", "point_index"),
    "fct_result_steady_state": ("result_id",),
    "fct_result_source_files": ("result_id", "file_role", "source_path"),
    "fct_result_label_origins": ("result_id", "label_key"),
    "published_vs_measured": ("figure_id",),
    "published_results": ("figure_id",),
    "data_quality_results": ("severity", "suite", "expectation", "table_name"),
}  # fmt: skip


class ReportError(Exception):
    """The report cannot be made (unknown testbed, no results, no validated version); the
    message says why and what to do."""


@dataclass(frozen=True)
class ReportData:
    testbed: str
    document: str | None
    frames: dict[str, pl.DataFrame] = field(default_factory=dict)
    testbeds: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()

    def get(self, mart: str) -> pl.DataFrame:
        return self.frames.get(mart, pl.DataFrame())


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    rows = con.execute(
        "select table_name, column_name from information_schema.columns"
        " where table_schema = 'marts'"
    ).fetchall()
    found: dict[str, set[str]] = {}
    for table, column in rows:
        found.setdefault(table, set()).add(column)
    return found


def _where(mart: str, cols: set[str]) -> tuple[str, int]:
    """The filter of `mart`'s rows on the testbed, and how many times it binds the testbed."""
    if mart == "data_quality_results":
        return "true", 0
    if mart == "published_results":
        return "source_document = $document", 0
    if mart == "published_vs_measured":
        # the document's figures about this testbed: SFD7's hybrid and all-flash figures
        # are two testbeds' (measured on each), another testbed's report has none
        return "source_document = $document and (testbed = $testbed or testbed is null)", 1
    if mart == "ra_comparison_points":
        # The testbed's measured points; the chosen document's printed ones (any testbed's).
        return (
            "(origin = 'measured' and testbed = $testbed) or (origin = 'published' and ("
            "coalesce(iops_figure_id, latency_figure_id, figure_id) in (select figure_id"
            " from marts.published_results where source_document = $document)))",
            1,
        )
    if "testbed" in cols:
        return "testbed = $testbed", 1
    if "testbed_id" in cols:
        return (
            "testbed_id in (select testbed_id from marts.dim_testbeds where testbed = $testbed)",
            1,
        )
    if "result_id" in cols:
        return (
            "result_id in (select result_id from marts.fct_workload_results"
            " where testbed = $testbed)",
            1,
        )
    if "sweep_id" in cols:
        return "sweep_id in (select sweep_id from marts.sweeps where testbed = $testbed)", 1
    return "false", 0


def _sorted(frame: pl.DataFrame, keys: tuple[str, ...]) -> pl.DataFrame:
    """Sorted on `keys` it has, then on every other column that sorts (a total, stable order)."""
    sortable = [
        c
        for c, t in frame.schema.items()
        if not isinstance(t, pl.List | pl.Struct | pl.Array | pl.Object)
    ]
    order = [k for k in keys if k in sortable] + [c for c in sortable if c not in keys]
    return frame.sort(order, nulls_last=True) if order and frame.height else frame


def collect(con: duckdb.DuckDBPyConnection, testbed: str, document: str | None) -> ReportData:
    """Every mart's rows for `testbed` (and `document`'s figures) on `con`. Raises ReportError
    for a testbed the version does not know or one without a workload result."""
    columns = _columns(con)
    if "fct_workload_results" not in columns:
        raise ReportError("the warehouse has no marts yet: run `python -m ingest build`")
    testbeds = tuple(
        r[0]
        for r in con.execute(
            "select distinct testbed from marts.fct_workload_results"
            " where testbed is not null order by 1"
        ).fetchall()
    )
    documents: tuple[str, ...] = ()
    if "published_results" in columns:
        documents = tuple(
            r[0]
            for r in con.execute(
                "select distinct source_document from marts.published_results order by 1"
            ).fetchall()
        )
    if testbed not in testbeds:
        known = ", ".join(testbeds) or "none"
        raise ReportError(f"testbed {testbed!r} has no workload results (testbeds: {known})")
    if document is not None and document not in documents:
        known = ", ".join(documents) or "none"
        raise ReportError(f"no published figures of document {document!r} (documents: {known})")
    frames: dict[str, pl.DataFrame] = {}
    for mart, keys in MARTS.items():
        if mart not in columns:
            continue
        where, _ = _where(mart, columns[mart])
        if "$document" in where and document is None:
            if mart != "ra_comparison_points":
                continue
            where = "origin = 'measured' and testbed = $testbed"
        params = {
            k: v for k, v in (("testbed", testbed), ("document", document)) if f"${k}" in where
        }
        frame = con.execute(f"select * from marts.{mart} where {where}", params).pl()
        frames[mart] = _sorted(frame, keys)
    return ReportData(testbed, document, frames, testbeds, documents)


def validation_time(data: ReportData) -> dt.datetime | None:
    """When the validation run this version holds ran (data_quality_results' `run_at`)."""
    dq = data.get("data_quality_results")
    if dq.is_empty() or "run_at" not in dq.columns:
        return None
    return dq["run_at"].max()  # type: ignore[return-value]
