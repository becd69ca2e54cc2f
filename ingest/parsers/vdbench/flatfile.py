"""Vdbench flatfile.html: a table of one row per interval and per run's avg_ row, read by column
name (the columns differ between Vdbench versions, and a file-system run's table has its own:
`Rate`, `Resp`, `Read_rate`, `MB_read`, `Xfersize`, `Mkdir_rate`, ...)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.parsers._common import hcibench_case_name, line_error, unterminated_last_line
from ingest.parsers.vdbench.records import (
    FsOperation,
    OutputKind,
    VdbenchInterval,
    VdbenchOutput,
    WorkloadKind,
    vm_name,
)
from ingest.parsers.vdbench.runs import AVG_LABEL, TAG, TOD, OpenRun, tod_ms
from ingest.records import Parsed, ParseError, SourceFile

# flatfile column -> (field, kind); kind f = float, i = int, s = text.
_FLAT_COLUMNS: dict[str, tuple[str, str]] = {
    "rate": ("iops", "f"),
    "MB/sec": ("mib_per_s", "f"),
    "bytes/io": ("bytes_per_io", "i"),
    "read%": ("read_pct", "f"),
    "resp": ("resp_ms", "f"),
    "read_resp": ("read_resp_ms", "f"),
    "write_resp": ("write_resp_ms", "f"),
    "resp_max": ("resp_max_ms", "f"),
    "read_max": ("read_max_ms", "f"),
    "write_max": ("write_max_ms", "f"),
    "resp_std": ("resp_stddev_ms", "f"),
    "read_std": ("read_stddev_ms", "f"),
    "write_std": ("write_stddev_ms", "f"),
    "queue_depth": ("queue_depth", "f"),
    "cpu_used": ("cpu_sys_user_pct", "f"),
    "cpu_kernel": ("cpu_sys_pct", "f"),
}
_FLAT_RUN_ONLY: dict[str, tuple[str, str]] = {
    "reqrate": ("requested_iops", "f"),
    "xfersize": ("xfersize_bytes", "i"),
    "threads": ("threads", "i"),
    "rdpct": ("requested_read_pct", "f"),
    "rhpct": ("read_hit_pct", "f"),
    "whpct": ("write_hit_pct", "f"),
    "seekpct": ("requested_seek_pct", "f"),
    "lunsize": ("lun_size_gib", "f"),
    "compratio": ("compratio_requested", "f"),
    "dedupratio": ("dedupratio_requested", "f"),
    "cpu_user": ("cpu_user_pct", "f"),
    "cpu_wait": ("cpu_wait_pct", "f"),
    "cpu_idle": ("cpu_idle_pct", "f"),
}
# A file-system run's flatfile (`Vdb/Flat.java` define_column_headers, the fwd branch; 50407
# capitalises the names and adds `_std`/`_max` columns). `Xfersize` is the mean bytes per
# operation (4093 for `xfersize=4k` on files whose sizes are no multiple of it), whatever the
# file's own legend says ("data transfer size requested"): it is `bytes_per_io`.
_FS_FLAT_COLUMNS: dict[str, tuple[str, str]] = {
    "Rate": ("iops", "f"),
    "Resp": ("resp_ms", "f"),
    "MB/sec": ("mib_per_s", "f"),
    "MB_read": ("read_mib_per_s", "f"),
    "MB_write": ("write_mib_per_s", "f"),
    "Read_rate": ("read_iops", "f"),
    "Read_resp": ("read_resp_ms", "f"),
    "Write_rate": ("write_iops", "f"),
    "Write_resp": ("write_resp_ms", "f"),
    "Xfersize": ("bytes_per_io", "i"),
    "Resp_std": ("resp_stddev_ms", "f"),
    "Resp_max": ("resp_max_ms", "f"),
    "Read_resp_std": ("read_stddev_ms", "f"),
    "Read_resp_max": ("read_max_ms", "f"),
    "Write_resp_std": ("write_stddev_ms", "f"),
    "Write_resp_max": ("write_max_ms", "f"),
    "cpu_used": ("cpu_sys_user_pct", "f"),
    "cpu_kernel": ("cpu_sys_pct", "f"),
}
_FS_FLAT_RUN_ONLY: dict[str, tuple[str, str]] = {
    "Reqrate": ("requested_iops", "f"),
    "Threads": ("threads", "i"),
    "Compratio": ("compratio_requested", "f"),
    "Dedupratio": ("dedupratio_requested", "f"),
    "cpu_user": ("cpu_user_pct", "f"),
    "cpu_wait": ("cpu_wait_pct", "f"),
    "cpu_idle": ("cpu_idle_pct", "f"),
}
_FS_OPERATION_COLUMNS = {
    op: (f"{op.value.capitalize()}_rate", f"{op.value.capitalize()}_resp") for op in FsOperation
}
_FLAT_IDENTITY = {"tod", "timestamp", "Run", "Interval", "version"}
_KNOWN = _FLAT_IDENTITY | set(_FLAT_COLUMNS) | set(_FLAT_RUN_ONLY)
_FS_KNOWN = (
    _FLAT_IDENTITY
    | set(_FS_FLAT_COLUMNS)
    | set(_FS_FLAT_RUN_ONLY)
    | {column for pair in _FS_OPERATION_COLUMNS.values() for column in pair}
)
# Vdbench writes 999988 (older) or 9999988 (50407) as the requested rate of iorate=max.
_MAX_RATES = {999988.0, 9999988.0}


@dataclass(slots=True)
class _Flatfile:
    """The table read so far: its header, finished runs and the run whose rows come now."""

    source: SourceFile
    header: list[str] | None = None
    is_filesystem: bool = False  # a file-system run's columns (`Rate`, `Read_rate`, ...)
    version: str | None = None
    runs: list[OpenRun] = field(default_factory=list)
    run: OpenRun | None = None
    last_interval: int = 0

    def close_run(self) -> None:
        if self.run is not None:
            self.runs.append(self.run)
            self.run = None

    def open_run(self, name: str) -> OpenRun:
        # A new run starts with a new name, or with interval numbering restarting (for loops).
        self.run = OpenRun(len(self.runs), name)
        self.last_interval = 0
        return self.run


def parse_flatfile(text: str, source: SourceFile, parsed: Parsed) -> None:
    table = _Flatfile(source)
    cut_line = unterminated_last_line(text)
    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        line = TAG.sub("", raw_line).strip()
        if not line or line.startswith("*"):
            continue
        tokens = line.split()
        if table.header is not None and line_no == cut_line:
            # A row the file stops inside (Vdbench was killed): its last cell may be a prefix
            # of the real value, and a short row is no reason to lose the rows before it.
            parsed.notes.append(f"line {line_no}: dropped the last row, cut short")
        elif table.header is not None:
            _read_row(table, line_no, tokens)
        elif tokens[0] == "tod":
            table.header = tokens
            table.is_filesystem = "Read_rate" in tokens and "rate" not in tokens
            if "Run" not in tokens or "Interval" not in tokens:
                raise line_error(source, line_no, "flatfile header lacks 'Run' or 'Interval'")
    if table.header is None:
        raise ParseError(source.path, "end of file", "no flatfile header line starting with 'tod'")
    table.close_run()
    if not table.runs:
        raise ParseError(source.path, "end of file", "flatfile has a header but no rows")
    runs = [run.finished() for run in table.runs]
    intervals = [i for run in table.runs for i in run.intervals]
    output = VdbenchOutput(
        output_kind=OutputKind.flatfile,
        case_name=hcibench_case_name(source),
        vm_name=vm_name(source),
        vdbench_version=table.version,
        vdbench_build_text=None,
        column_layout="flatfile",
        workload_kind=WorkloadKind.filesystem if table.is_filesystem else WorkloadKind.raw,
        has_cpu_columns="cpu_used" in table.header,
        report_created_at=None,
        run_count=len(runs),
        interval_count=len(intervals),
        completed_successfully=None,
    )
    parsed.add("vdbench_outputs", [output])
    parsed.add("vdbench_runs", runs)
    parsed.add("vdbench_intervals", intervals)


def _read_row(table: _Flatfile, line_no: int, tokens: list[str]) -> None:
    """One interval row (added to the open run) or avg_ row (which closes it)."""
    row = _checked_row(table, line_no, tokens)
    if row.get("version", "n/a") != "n/a":
        table.version = row["version"]
    fs = table.is_filesystem
    columns, run_only, known = (
        (_FS_FLAT_COLUMNS, _FS_FLAT_RUN_ONLY, _FS_KNOWN)
        if fs
        else (_FLAT_COLUMNS, _FLAT_RUN_ONLY, _KNOWN)
    )
    measures = _values(row, columns, table.source, line_no)
    if fs:
        measures["fs_operations_json"] = _fs_operations(row, table.source, line_no)
    label = _checked_label(row["Interval"], table.source, line_no)
    is_avg = label.startswith("avg_")
    run = table.run
    if run is not None and (
        row["Run"] != run.rd_name or (not is_avg and int(label) <= table.last_interval)
    ):
        table.close_run()
        run = None
    if run is None:
        run = table.open_run(row["Run"])
    if is_avg:
        requested = _values(row, run_only, table.source, line_no)
        asked = requested.get("requested_iops")
        requested["is_max_rate"] = None if asked is None else asked in _MAX_RATES
        other = {col: row[col] for col in row if col not in known}
        run.avg, run.avg_label, run.ended_tod = {**measures, **requested}, label, row["tod"]
        run.extra = other or None
        table.close_run()
        return
    table.last_interval = int(label)
    run.add_interval(
        VdbenchInterval(
            run_index=run.index,
            rd_name=run.rd_name,
            interval_index=table.last_interval,
            tod=row["tod"],
            tod_ms=tod_ms(row["tod"]),
            local_timestamp_text=row.get("timestamp"),
            **measures,
        )
    )


def _fs_operations(
    row: dict[str, str], source: SourceFile, line_no: int
) -> dict[str, dict[str, float | None]]:
    """The rate and response time of each file operation the row has columns for."""
    return {
        op.value: {
            "rate_per_s": _flat_value(row[rate], "f", source, line_no, rate),
            "resp_ms": _flat_value(row[resp], "f", source, line_no, resp),
        }
        for op, (rate, resp) in _FS_OPERATION_COLUMNS.items()
        if rate in row and resp in row
    }


def _checked_row(table: _Flatfile, line_no: int, tokens: list[str]) -> dict[str, str]:
    """The row's cells by column name, once its shape and time of day are checked."""
    header, source = table.header, table.source
    assert header is not None
    if len(tokens) != len(header):
        raise line_error(
            source, line_no, f"expected {len(header)} columns as in the header, found {len(tokens)}"
        )
    row = dict(zip(header, tokens, strict=True))
    if not re.fullmatch(TOD, row["tod"]):
        raise line_error(source, line_no, f"column 'tod': {row['tod']!r} is not a time of day")
    return row


def _checked_label(label: str, source: SourceFile, line_no: int) -> str:
    """An Interval cell: an interval number or `avg_<first>-<last>`."""
    if not label.startswith("avg_") and not label.isdigit():
        raise line_error(
            source,
            line_no,
            f"column 'Interval': {label!r} is neither a number nor avg_<first>-<last>",
        )
    if label.startswith("avg_") and not AVG_LABEL.match(label):
        raise line_error(source, line_no, f"column 'Interval': malformed label {label!r}")
    return label


def _values(
    row: dict[str, str], columns: dict[str, tuple[str, str]], source: SourceFile, line_no: int
) -> dict[str, Any]:
    """The row's cells of `columns` (those it has) by field name, as numbers."""
    return {
        name: _flat_value(row[col], kind, source, line_no, col)
        for col, (name, kind) in columns.items()
        if col in row
    }


def _flat_value(text: str, kind: str, source: SourceFile, line_no: int, column: str) -> Any:
    if text == "n/a":
        return None
    try:
        value = float(text)
    except ValueError:
        raise line_error(source, line_no, f"column {column!r}: {text!r} is not a number") from None
    if kind == "i" and not math.isfinite(value):
        raise line_error(source, line_no, f"column {column!r}: {text!r} is not a whole number")
    return int(value) if kind == "i" else value
