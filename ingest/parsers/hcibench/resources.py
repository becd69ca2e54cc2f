"""Host resource use during a test: the `Resource Utilization` table (HCIBench 2.8+, in
`-res.txt` and `resource_util.info`), the `resource_usage.info` cluster averages, and the
`CPU USAGE = ...` lines of HCIBench <= 2.5 summaries."""

from __future__ import annotations

from ingest.parsers._common import hcibench_case_name, load_json, unterminated_last_line
from ingest.parsers.hcibench.records import HcibenchResourceUsage
from ingest.parsers.hcibench.values import number, numbered_lines
from ingest.records import Parsed, ParseError, SourceFile

_TABLE_COLUMNS = {
    "cpu.usage%": "cpu_usage_pct",
    "cpu.utilization%": "cpu_utilization_pct",
    "mem.usage%": "mem_usage_pct",
}
_AVERAGES = (
    ("cpu.usage", "cpu_usage_pct"),
    ("cpu.utilization", "cpu_utilization_pct"),
    ("mem.usage", "mem_usage_pct"),
)


def usage_values(text: str, source: SourceFile, line_no: int) -> list[tuple[str | None, float]]:
    """`45.3%` or `cluster1: 45.3%; cluster2: 12.0%; ` (HCIBench <= 2.5, several clusters)."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    out: list[tuple[str | None, float]] = []
    for part in parts:
        cluster, _, value = part.rpartition(":")
        percent = value.strip().removesuffix("%")
        out.append((cluster.strip() or None, number(percent, source, line_no, "resource usage")))
    return out


def utilization_table_rows(
    lines: list[tuple[int, str]], source: SourceFile, case: str | None, origin: str
) -> list[HcibenchResourceUsage]:
    """RVC `perf.stats_with_timerange -o table` output (terminal-table), one or more clusters."""
    rows: list[HcibenchResourceUsage] = []
    cluster: str | None = None
    columns: list[str] = []
    for line_no, line in lines:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["Resource Utilization"]:
            cluster, columns = None, []
            continue
        if cluster is None:
            cluster, columns = cells[0], cells[1:]
            continue
        values: dict[str, float] = {}
        for column, cell in zip(columns, cells[1:], strict=False):
            field = _TABLE_COLUMNS.get(column)
            if field and cell:
                values[field] = number(cell, source, line_no, column)
        is_average = cells[0] == "Average"
        rows.append(
            HcibenchResourceUsage(
                case_name=case,
                origin=origin,
                cluster_name=cluster,
                host_name=None if is_average else cells[0],
                is_average=is_average,
                **values,
            )
        )
    return rows


def parse_resource_util(text: str, source: SourceFile, parsed: Parsed) -> None:
    lines = [(n, line.strip()) for n, line in numbered_lines(text) if line.strip()]
    cut = unterminated_last_line(text)
    last_no, last = lines[-1] if lines else (0, "")
    if last.startswith("|") and (last_no == cut or not last.endswith("|")):
        # A row the file stops inside: `33.4` may be the start of `33.41`. Never stored.
        parsed.notes.append(f"line {lines[-1][0]}: incomplete last row (file cut short): dropped")
        lines.pop()
    rows = utilization_table_rows(lines, source, hcibench_case_name(source), "resource_util_info")
    if not rows:
        raise ParseError(
            source.path, "end of file", "no host rows in the Resource Utilization table"
        )
    parsed.add("hcibench_resource_usage", rows)


def parse_resource_usage(text: str, source: SourceFile, parsed: Parsed) -> None:
    document = load_json(text, source)
    if not isinstance(document, dict):
        raise ParseError(source.path, "line 1", "expected a JSON object of clusters")
    rows = []
    for cluster, metrics in document.items():
        if not isinstance(metrics, dict):
            raise ParseError(
                source.path, "line 1", f"cluster {cluster!r}: expected an object of averages"
            )
        values = {}
        for metric, field in _AVERAGES:
            value = metrics.get(metric)
            if value is not None and not isinstance(value, int | float):
                raise ParseError(
                    source.path, "line 1", f"cluster {cluster!r}: {metric} is not a number"
                )
            values[field] = None if value is None else float(value)
        rows.append(
            HcibenchResourceUsage(
                case_name=hcibench_case_name(source),
                origin="resource_usage_info",
                cluster_name=cluster,
                host_name=None,
                is_average=True,
                **values,
            )
        )
    parsed.add("hcibench_resource_usage", rows)
