"""What acceptance reads from one version of the warehouse: the results a rule's `where:` picks,
with every measure and validity fact its requirements need, and the reference tables (ReadyNode
targets, published figures, change points). One query per rule; nothing is written.

Where each fact comes from (the marts are the contract):
- measures, nodes, `is_partial` / `partial_reason` / `vms_excluded`, `cpu_util_pct`:
  marts.fct_workload_results; IOPS per node: marts.per_node_iops;
- steady state: marts.fct_result_steady_state (no row: the result has no interval series);
- VM spread: the largest |iops_vs_output_mean_pct| over the result's outputs
  (marts.fct_result_outputs), known with two outputs or more;
- host CPU and whether it was saturated: marts.fct_result_host_cpu (the busiest host's mean
  over the run window, else the result's own `cpu_util_pct`; the threshold is dbt var
  host_cpu_saturated_pct: the one definition history's run validity uses too);
- change points: marts.change_points (built by the change-point helper; absent in older
  warehouses, which `ChangePoints.present` says), and each result's series from
  marts.history_points (`series_key`: the configuration over time, an upgrade included), so a
  change applies to the results of its own series only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import duckdb

from ingest.accept_spec import Rule, Scalar, WhereKey

# Every mart acceptance reads but the optional change points.
REQUIRED_MARTS = frozenset({
    "fct_workload_results", "fct_result_labels", "per_node_iops", "fct_result_steady_state",
    "fct_result_outputs", "fct_result_host_cpu", "readynode_profile_targets",
    "published_results",
})  # fmt: skip
# Columns a `where:` cannot select on: lists and the raw label text (labels are keys themselves).
NOT_SELECTABLE = {"profile_order", "labels_json"}
# A change point's columns that are not part of its series' identity.
CHANGE_POINT_VALUE_COLUMNS = {"result_id", "started_at", "ended_at", "labels_json"}


@dataclass(frozen=True)
class ResultFacts:
    result_id: str
    testbed: str | None
    profile: str | None
    started_at: dt.datetime | None
    nodes: int | None
    iops_per_node: float | None
    is_partial: bool
    partial_reason: str | None
    vms_excluded: int
    is_steady_state: bool | None
    steady_state_criterion: str | None
    vm_spread_pct: float | None
    output_count: int
    host_cpu_pct: float | None
    busiest_host: str | None
    is_host_cpu_saturated: bool | None
    host_cpu_saturated_pct: float | None
    series_key: str | None
    # Every column of fct_workload_results (measures by name, series labels for change points).
    columns: dict[str, Any] = field(default_factory=dict)

    def measure(self, name: str) -> float | None:
        value = self.columns.get(name)
        return None if value is None else float(value)


@dataclass(frozen=True)
class Figure:
    figure_id: str
    source_document: str
    metric: str
    value: float
    unit: str


@dataclass(frozen=True)
class ChangePoint:
    measure: str
    result_id: str
    started_at: dt.datetime | None
    change_pct: float
    review_state: str
    series_key: str | None
    series: dict[str, Any]


@dataclass(frozen=True)
class ChangePoints:
    present: bool
    rows: tuple[ChangePoint, ...] = ()
    # marts.history_points exists: each result's series_key is known
    has_series: bool = False


@dataclass(frozen=True)
class Catalog:
    """The warehouse's keys and reference tables, read once per run."""

    column_types: dict[str, str]
    label_keys: frozenset[str]
    readynode_targets: dict[str, float]
    figures: dict[str, Figure]
    change_points: ChangePoints

    def known_keys(self) -> list[str]:
        return sorted(set(self.column_types) | self.label_keys)


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "select table_name from information_schema.tables where table_schema = 'marts'"
        " and table_catalog = current_database()"
    ).fetchall()
    return {name for (name,) in rows}


def _column_types(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    rows = con.execute(
        "select column_name, data_type from information_schema.columns"
        " where table_schema = 'marts' and table_name = ? and table_catalog = current_database()"
        " order by ordinal_position",
        [table],
    ).fetchall()
    return dict(rows)


def read_catalog(con: duckdb.DuckDBPyConnection) -> Catalog:
    tables = _tables(con)
    if "fct_workload_results" not in tables:
        raise LookupError("the warehouse has no marts yet: run `python -m ingest build`")
    missing = sorted(REQUIRED_MARTS - tables)
    if missing:
        raise LookupError(
            f"the warehouse lacks {', '.join('marts.' + m for m in missing)}: it was built by "
            "an older version; run `python -m ingest build` (then publish)"
        )
    types = _column_types(con, "fct_workload_results")
    labels = frozenset(
        key
        for (key,) in con.execute(
            "select distinct label_key from marts.fct_result_labels"
        ).fetchall()
    )
    targets = dict(
        con.execute(
            "select readynode_profile, target_iops_per_node from marts.readynode_profile_targets"
        ).fetchall()
    )
    figures = {
        row[0]: Figure(*row)
        for row in con.execute(
            "select figure_id, source_document, metric, value, unit from marts.published_results"
        ).fetchall()
    }
    return Catalog(
        column_types={c: t for c, t in types.items() if c not in NOT_SELECTABLE},
        label_keys=labels,
        readynode_targets=targets,
        figures=figures,
        change_points=_change_points(con, tables, set(types)),
    )


def _change_points(
    con: duckdb.DuckDBPyConnection, tables: set[str], result_columns: set[str]
) -> ChangePoints:
    """The open and confirmed change points. A change point's series is told by its columns
    that fct_workload_results also has (testbed, profile, read_pct, ...), so a result belongs
    to the series when it has the same values in all of them."""
    if "change_points" not in tables:
        return ChangePoints(present=False)
    columns = _column_types(con, "change_points")
    series = [c for c in columns if c in result_columns and c not in CHANGE_POINT_VALUE_COLUMNS]
    # a change-point table a test or an older build wrote may lack the key
    key = "series_key" if "series_key" in columns else "null"
    cursor = con.execute(
        f"select measure, result_id, started_at, change_pct, review_state, {key}"
        + "".join(f", {_quoted(c)}" for c in series)
        + " from marts.change_points where review_state in ('open', 'confirmed')"
    )
    rows = tuple(
        ChangePoint(*row[:6], series=dict(zip(series, row[6:], strict=True)))
        for row in cursor.fetchall()
    )
    return ChangePoints(present=True, rows=rows, has_series="history_points" in tables)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _label_text(value: Scalar) -> str:
    """A YAML value as a label's stored text (labels are text; booleans are lowercase)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _condition(where: WhereKey, catalog: Catalog) -> tuple[str, list[Any]]:
    """SQL on `r` (a result row) for one where key, and its parameters. A result column is
    compared as text (`read_pct: 70` matches 70, `is_dedupe: true` matches true); any other
    key through the result's labels."""
    texts = [_label_text(v) for v in where.values]
    marks = ", ".join("?" for _ in texts)
    if where.key in catalog.column_types:
        column = _quoted(where.key)
        return f"lower(cast(r.{column} as varchar)) in ({marks})", [t.lower() for t in texts]
    return (
        "exists (select 1 from marts.fct_result_labels l where l.result_id = r.result_id"
        f" and l.label_key = ? and lower(l.label_value) in ({marks}))",
        [where.key, *(t.lower() for t in texts)],
    )


FACTS_SQL = """
with outputs as (
    select result_id, max(abs(iops_vs_output_mean_pct)) as vm_spread_pct,
        count(*) as output_count
    from marts.fct_result_outputs group by result_id
)
select
    r.result_id, r.testbed, r.profile, r.started_at, r.nodes, p.iops_per_node,
    coalesce(r.is_partial, false), r.partial_reason, coalesce(r.vms_excluded, 0),
    s.is_steady_state, s.steady_state_criterion,
    o.vm_spread_pct, coalesce(o.output_count, 0),
    h.host_cpu_pct, h.busiest_host, h.is_host_cpu_saturated, h.host_cpu_saturated_pct,
    k.series_key,
    r.*
from marts.fct_workload_results r
left join marts.per_node_iops p on p.result_id = r.result_id
left join marts.fct_result_steady_state s on s.result_id = r.result_id
left join outputs o on o.result_id = r.result_id
left join marts.fct_result_host_cpu h on h.result_id = r.result_id
left join {series} on k.result_id = r.result_id
where {conditions}
order by r.started_at nulls last, r.result_id
"""
FACT_FIELDS = 18
# each result's series (one per result: every measure's point has the same key)
SERIES_SQL = "(select result_id, any_value(series_key) as series_key from marts.history_points"
SERIES_SQL += " group by result_id) k"
NO_SERIES_SQL = "(select null as result_id, null as series_key) k"


def matching_results(
    con: duckdb.DuckDBPyConnection, rule: Rule, catalog: Catalog
) -> list[ResultFacts]:
    parts = [_condition(w, catalog) for w in rule.where]
    conditions = " and ".join(sql for sql, _ in parts) or "true"
    params = [p for _, ps in parts for p in ps]
    series = SERIES_SQL if catalog.change_points.has_series else NO_SERIES_SQL
    cursor = con.execute(FACTS_SQL.format(conditions=conditions, series=series), params)
    names = [d[0] for d in cursor.description][FACT_FIELDS:]
    return [
        ResultFacts(*row[:FACT_FIELDS], columns=dict(zip(names, row[FACT_FIELDS:], strict=True)))
        for row in cursor.fetchall()
    ]
