"""Vdbench report text: console/stdout, summary.html, totals.html and logfile.html.

They carry the same lines: a `Vdbench distribution:` version line, `HH:MM:SS.mmm Starting
RD=...` per run definition, interval lines and one `avg_<first>-<last>` totals line per run.
The numbers after an interval label of a raw (sd/wd) run are told apart by counting them
(FORMATS.md 2.5); a file-system (fsd/fwd) run prints a column header naming its groups
(`..Interval.. .ReqstdOps... ...cpu%...  read ....read..... ....write.... ..mb/sec... mb/sec
.xfer.. ....open.... ...close....`), which says what each number is.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from ingest.parsers._common import hcibench_case_name, line_error, unterminated_last_line
from ingest.parsers.vdbench.records import (
    FsOperation,
    OutputKind,
    VdbenchInterval,
    VdbenchOutput,
    VdbenchRun,
    WorkloadKind,
    vm_name,
)
from ingest.parsers.vdbench.runs import TAG, TOD, OpenRun, rd_facts, tod_ms
from ingest.records import Parsed, ParseError, RunState, SourceFile

_RD_LINE = re.compile(rf"^(?P<tod>{TOD}) Starting (?P<rd>RD=.*?)\s*$")
_DATA_LINE = re.compile(rf"^(?P<tod>{TOD})\s*(?P<label>avg_\d+-\d+|\d+)\s+(?P<rest>\S.*?)\s*$")
_NUMBER = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)$|^NaN$")
_VERSION = re.compile(
    r"Vdbench distribution:\s+(?P<version>vdbench\w+)(?:\s+(?P<build>\S.*?))?\s*$"
)
_CREATED_UTC = re.compile(r"created .*\((?P<utc>\d\d:\d\d:\d\d \w{3} \d\d \d{4}) UTC\)")
_COMPLETED = "Vdbench execution completed successfully"
# Slave JVMs are named `<host>-<n>` (`localhost-0`, `hd1-0`): the `-l` of `Starting slave:`, and
# `Slave <name> connected`. summary.html links one report per host (`Link to HOST reports:`,
# continued on indented lines of anchors).
_SLAVE = re.compile(
    r"Starting slave: .* -l (?P<a>\S+)|\bSlave (?P<b>\S+) (?:\(pid .*\) )?connected"
)
_HOST_LINKS = "Link to HOST reports:"
_ANCHOR_TEXT = re.compile(r"<A HREF=\"[^\"]*\">(?P<name>[^<]+)</A>", re.IGNORECASE)

# Field names of the numbers after the label, per count: (layout, has cpu columns, names).
_BASE = [
    "iops",
    "mib_per_s",
    "bytes_per_io",
    "read_pct",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
]
_LAYOUTS: dict[int, tuple[str, bool, list[str]]] = {
    12: (
        "50406",
        True,
        [*_BASE, "resp_max_ms", "resp_stddev_ms", "queue_depth", "cpu_sys_user_pct", "cpu_sys_pct"],
    ),
    10: ("50406", False, [*_BASE, "resp_max_ms", "resp_stddev_ms", "queue_depth"]),
    13: (
        "50407",
        True,
        [
            *_BASE,
            "read_max_ms",
            "write_max_ms",
            "resp_stddev_ms",
            "queue_depth",
            "cpu_sys_user_pct",
            "cpu_sys_pct",
        ],
    ),
    11: ("50407", False, [*_BASE, "read_max_ms", "write_max_ms", "resp_stddev_ms", "queue_depth"]),
}


# A file-system run's column header: group names between dots, after the date. Each group
# fills these fields, in Vdbench's order (`Vdb/FwdStats.java` getHeader1/printLine); the first
# `read` is the read % and the first `mb/sec` read and write MiB/s, the second the total.
_FS_HEADER = re.compile(r"\.Interval\.+\s+\.ReqstdOps\.")
_FS_GROUPS: dict[str, list[list[str]]] = {
    "ReqstdOps": [["iops", "resp_ms"]],
    "cpu%": [["cpu_sys_user_pct", "cpu_sys_pct"]],
    "read": [["read_pct"], ["read_iops", "read_resp_ms"]],
    "write": [["write_iops", "write_resp_ms"]],
    "mb/sec": [["read_mib_per_s", "write_mib_per_s"], ["mib_per_s"]],
    "xfer": [["bytes_per_io"]],
    **{op.value: [[f"{op.value}.rate", f"{op.value}.resp"]] for op in FsOperation},
}


def fs_columns(header: str) -> list[str] | None:
    """The field of each number after the label of a file-system run's lines, from its column
    header; None for a group this parser does not know."""
    tokens = header.split()
    start = next((i for i, t in enumerate(tokens) if t.strip(".") == "Interval"), None)
    if start is None:  # `.Interval.` glued to other text: not a header this parser reads
        return None
    seen: dict[str, int] = {}
    columns: list[str] = []
    for token in tokens[start + 1 :]:
        group = token.strip(".")
        uses = _FS_GROUPS.get(group, [])
        index = seen.get(group, 0)
        if index >= len(uses):
            return None
        seen[group] = index + 1
        columns.extend(uses[index])
    return columns


def output_kind(text: str, name: str) -> OutputKind:
    """Which of the report files this is, from its first lines (and its name for logfile)."""
    if "Vdbench summary report" in text[:4096]:
        return OutputKind.summary
    first_lines = [TAG.sub("", line).strip() for line in text[:2048].splitlines()[:4]]
    if "Run totals" in first_lines:
        return OutputKind.totals
    if text.lstrip().startswith(("<pre>", "<title>")) or name.endswith(".html"):
        return OutputKind.logfile
    return OutputKind.stdout


@dataclass(slots=True)
class _Report:
    """What the lines of one report said so far."""

    source: SourceFile
    cut_line: int | None  # number of a last line without its newline, else None
    version: str | None = None
    build: str | None = None
    layout: tuple[str, bool] | None = None
    fs_columns: list[str] | None = None  # set by a file-system run's column header
    created_at: dt.datetime | None = None
    completed: bool = False
    runs: list[OpenRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    slaves: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    in_host_links: bool = False

    def read_load_generators(self, raw_line: str) -> None:
        """Slave names and summary.html's host report links (see `_SLAVE`)."""
        if _HOST_LINKS in raw_line or (self.in_host_links and raw_line.startswith(" ")):
            self.in_host_links = True
            self.hosts.update(m["name"].strip() for m in _ANCHOR_TEXT.finditer(raw_line))
            return
        self.in_host_links = False
        slave = _SLAVE.search(raw_line)
        if slave:
            self.slaves.add(slave["a"] or slave["b"])

    def host_count(self) -> int | None:
        hosts = self.hosts or {re.sub(r"-\d+$", "", slave) for slave in self.slaves}
        return len(hosts) or None


def parse_report(text: str, source: SourceFile, kind: OutputKind, parsed: Parsed) -> None:
    # A last line without its newline may have been cut by a run that never finished.
    report = _Report(source, unterminated_last_line(text))
    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        report.read_load_generators(raw_line)
        line = TAG.sub("", raw_line).rstrip()
        if line:
            _read_line(report, line_no, line)
    if not report.runs:
        raise ParseError(
            source.path, "end of file", "no 'Starting RD=' line: not a Vdbench run report"
        )
    parsed.notes.extend(report.notes)
    finished = [run.finished() for run in report.runs]
    for run in finished:
        if run.state is RunState.unfinished and not run.is_format_run:
            parsed.notes.append(
                f"run {run.rd_name!r} (#{run.run_index}) has no avg_ line: it did not finish"
            )
    parsed.add("vdbench_outputs", [_output_row(report, kind, finished)])
    parsed.add("vdbench_runs", finished)
    parsed.add("vdbench_intervals", [i for r in report.runs for i in r.intervals])


def _read_line(report: _Report, line_no: int, line: str) -> None:
    """One line of text: a banner, a run start, a file-system column header or a data line."""
    if _read_banner(report, line) or _read_run_start(report, line):
        return
    if not _read_fs_header(report, line_no, line):
        _read_data_line(report, line_no, line)


def _output_row(report: _Report, kind: OutputKind, finished: list[VdbenchRun]) -> VdbenchOutput:
    layout = report.layout
    workload = None
    if layout is not None:
        workload = WorkloadKind.filesystem if layout[0] == "filesystem" else WorkloadKind.raw
    return VdbenchOutput(
        output_kind=kind,
        case_name=hcibench_case_name(report.source),
        vm_name=vm_name(report.source),
        vdbench_version=report.version,
        vdbench_build_text=report.build,
        column_layout=layout[0] if layout else None,
        workload_kind=workload,
        has_cpu_columns=layout[1] if layout else None,
        report_created_at=report.created_at,
        run_count=len(finished),
        interval_count=sum(len(r.intervals) for r in report.runs),
        # totals.html never prints the completion line: unknown rather than False.
        completed_successfully=report.completed
        if kind in (OutputKind.stdout, OutputKind.summary, OutputKind.logfile)
        else None,
        host_count=report.host_count(),
        slave_count=len(report.slaves) or None,
    )


def _read_banner(report: _Report, line: str) -> bool:
    """The version, completion and report-time lines; True when `line` was one of them."""
    version_match = _VERSION.search(line)
    if version_match and report.version is None:
        report.version, report.build = version_match.group("version"), version_match.group("build")
        return True
    if _COMPLETED in line:
        report.completed = True
        return True
    created = _CREATED_UTC.search(line)
    if created:
        report.created_at = _parse_created(created.group("utc"))
        return True
    return False


def _read_run_start(report: _Report, line: str) -> bool:
    """A `Starting RD=` line opens a run; True when `line` was one."""
    rd_match = _RD_LINE.match(line)
    if not rd_match:
        return False
    rd_text = rd_match.group("rd")
    current = report.runs[-1] if report.runs else None
    # logfile.html prints each start twice (anchored and plain): one run.
    if current and current.rd_text == rd_text and not current.intervals and not current.avg:
        return True
    name = rd_facts(rd_text)["rd_name"]
    report.runs.append(OpenRun(len(report.runs), name, rd_text, rd_match.group("tod")))
    return True


def _read_fs_header(report: _Report, line_no: int, line: str) -> bool:
    """A file-system run's column header sets what the following lines' numbers are."""
    if not _FS_HEADER.search(line):
        return False
    columns = fs_columns(line)
    if columns is None:
        raise line_error(
            report.source, line_no, "file-system column header with a group this does not know"
        )
    layout = ("filesystem", "cpu_sys_pct" in columns)
    if report.layout is not None and report.layout[0] != "filesystem":
        raise line_error(
            report.source, line_no, "file-system column header after raw (sd/wd) interval lines"
        )
    report.layout, report.fs_columns = layout, columns
    return True


def _read_data_line(report: _Report, line_no: int, line: str) -> None:
    """An interval or avg_ line adds to the open run; other lines are log messages."""
    data = _DATA_LINE.match(line)
    if not data:
        return
    label = data.group("label")
    values = _line_measures(report, line_no, label, data.group("rest").split())
    if values is None:
        return
    run, tod = report.runs[-1], data.group("tod")
    if not label.startswith("avg_"):
        run.add_interval(
            VdbenchInterval(
                run_index=run.index,
                rd_name=run.rd_name,
                interval_index=int(label),
                tod=tod,
                tod_ms=tod_ms(tod),
                **values,
            )
        )
    elif run.avg is not None:
        raise line_error(
            report.source,
            line_no,
            f"second avg_ line for run {run.rd_name!r} without a new 'Starting RD=' line",
        )
    else:
        run.avg, run.avg_label, run.ended_tod = values, label, tod


def _line_measures(
    report: _Report, line_no: int, label: str, tokens: list[str]
) -> dict[str, Any] | None:
    """The numbers of a data line by field name; None for a line that is not one."""
    source = report.source
    if line_no == report.cut_line and (label.startswith("avg_") or _NUMBER.match(tokens[0])):
        # The output stops inside this line (the run was killed): even with all its columns,
        # its last number may be a prefix of the printed one (`3` of `3.7`). Keep what came
        # before it.
        report.notes.append(f"line {line_no}: dropped the last line, cut short")
        return None
    if not all(_NUMBER.match(t) for t in tokens):
        if label.startswith("avg_") or _NUMBER.match(tokens[0]):
            what = "totals" if label.startswith("avg_") else "interval"
            raise line_error(source, line_no, f"malformed Vdbench {what} line: non-numeric value")
        return None  # a log message that happens to start with a number
    if report.fs_columns is not None:
        if len(tokens) != len(report.fs_columns):
            raise line_error(
                source,
                line_no,
                f"expected {len(report.fs_columns)} numbers after the interval label as the "
                f"file-system column header says, found {len(tokens)}",
            )
        if not report.runs:
            raise line_error(source, line_no, "interval line before any 'Starting RD=' line")
        values = _measures(tokens, report.fs_columns)
        values["fs_operations_json"] = _fs_operations(values)
        return values
    if len(tokens) not in _LAYOUTS:
        raise line_error(
            source,
            line_no,
            f"expected 10, 11, 12 or 13 numbers after the interval label, found {len(tokens)}",
        )
    line_layout, has_cpu, names = _LAYOUTS[len(tokens)]
    if report.layout is None:
        report.layout = (line_layout, has_cpu)
        _check_version(source, line_no, report.version, line_layout)
    elif report.layout != (line_layout, has_cpu):
        raise line_error(
            source,
            line_no,
            f"column layout changed within the file: {len(tokens)} numbers after the label",
        )
    if not report.runs:
        raise line_error(source, line_no, "interval line before any 'Starting RD=' line")
    return _measures(tokens, names)


def _fs_operations(values: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """The per-operation columns of a file-system line, taken out of `values`."""
    return {
        op.value: {
            "rate_per_s": values.pop(f"{op.value}.rate"),
            "resp_ms": values.pop(f"{op.value}.resp"),
        }
        for op in FsOperation
        if f"{op.value}.rate" in values
    }


def _num(text: str) -> float | None:
    # Vdbench prints NaN for cpu when an RD had a single interval (all-zero avg_2-1).
    return None if text == "NaN" else float(text)


def _measures(values: list[str], names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, text in zip(names, values, strict=True):
        value = _num(text)
        out[name] = int(value) if name == "bytes_per_io" and value is not None else value
    return out


def _check_version(source: SourceFile, line_no: int, version: str | None, layout: str) -> None:
    match = re.search(r"(\d{5})", version) if version else None
    if match is None:
        return
    expected = "50407" if int(match.group(1)) >= 50407 else "50406"
    if expected != layout:
        raise line_error(
            source,
            line_no,
            f"{version} prints the {expected} column layout but this line has the {layout} layout",
        )


def _parse_created(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(text, "%H:%M:%S %b %d %Y").replace(tzinfo=dt.UTC)
    except ValueError:  # a non-English month name (JVM locale)
        return None
