"""Vdbench output: console/stdout (HCIBench `<vm>.txt`), summary.html, totals.html, logfile.html
and flatfile.html.

HCIBench runs one Vdbench per worker VM and keeps its stdout as `<vm>.txt` in the test-case
folder; users who ran Vdbench by hand keep its output folder. All of these carry the same lines
(`HH:MM:SS.mmm Starting RD=...`, interval lines, one `avg_<first>-<last>` totals line per run
definition), except flatfile.html, a table read by column name. See FORMATS.md 2.5.

Column layouts of interval/totals lines (numbers after the label; told apart by counting):
12 / 10 = vdbench50401-50406 with / without the cpu columns (one `resp max`),
13 / 11 = vdbench50407 with / without the cpu columns (`read max`, `write max`).
MB/sec is MiB/s (Vdbench prints `1024**2` under it): stored as `mib_per_s`. Latencies are ms.
Parameter files (parmfile.html) and response-time histograms (histogram.html) are not claimed.

Tables
------
`vdbench_outputs` (one row per file):
    output_kind            `stdout` | `summary` | `totals` | `logfile` | `flatfile`
    case_name, vm_name     HCIBench test case folder name and worker VM (file stem) when the
                           file sits in a test case, else None
    vdbench_version        `vdbench50407` from the `Vdbench distribution:` line (stdout and
                           logfile only), or a flatfile `version` value other than `n/a`
    vdbench_build_text     what follows the version on that line (`Tue June 05  9:49:29 MDT 2018`)
    column_layout          `50406` (50401-50406) | `50407` | `flatfile`
    has_cpu_columns        whether interval lines carry `cpu% sys+u` / `cpu% sys`
    report_created_at      summary.html `created ... (... UTC)` time, UTC; None when not given
    run_count, interval_count
    completed_successfully `Vdbench execution completed successfully` was printed (None for
                           totals/flatfile, which never print it)

`vdbench_runs` (one row per run definition, i.e. per `Starting RD=` or flatfile run):
    run_index              0-based order in the file (an automatic `SD_format` run counts too)
    rd_name, rd_text       `rd1`; `RD=rd1; I/O rate: 100; elapsed=5; For loops: None` (the text
                           HCIBench keeps as `Run Def`)
    io_rate_text, elapsed_s, warmup_s, for_loops   parsed from rd_text
    is_format_run          Vdbench's automatic `SD_format`/`FSD_format` run (not a measurement)
    started_tod            time of day of the `Starting RD=` line, `HH:MM:SS.mmm` (local time)
    state                  `ok` (has an avg_ line) | `unfinished` (no avg_ line: the run did not
                           finish; metric columns are None)
    avg_label, first_interval, last_interval, ended_tod   `avg_2-60`, 2, 60, tod of that line
    interval_count         interval lines seen for the run
    iops, mib_per_s, bytes_per_io, read_pct, resp_ms, read_resp_ms, write_resp_ms,
    resp_max_ms (50406 and flatfile), read_max_ms, write_max_ms (50407),
    resp_stddev_ms, read_stddev_ms, write_stddev_ms (flatfile 50407), queue_depth,
    cpu_sys_user_pct, cpu_sys_pct  the avg_ line as printed
    requested_iops, is_max_rate, xfersize_bytes, threads, requested_read_pct, read_hit_pct,
    write_hit_pct, requested_seek_pct, lun_size_gib, compratio_requested,
    dedupratio_requested, cpu_user_pct, cpu_wait_pct, cpu_idle_pct   flatfile avg_ row only
    extra_json             flatfile columns not listed above (e.g. older `ks_*`), as printed

`vdbench_intervals` (one row per interval line):
    run_index, rd_name, interval_index, tod, tod_ms (ms after local midnight),
    local_timestamp_text (flatfile 50407 `timestamp`, e.g. `10/09/2019-14:41:22-ICT`),
    iops ... cpu_sys_pct   same meaning as in vdbench_runs
"""

from __future__ import annotations

import datetime as dt
import enum
import math
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from ingest.records import Parsed, ParseError, RunState, SourceFile

FORMAT = "vdbench"
PARSER_VERSION = "1"


class OutputKind(enum.StrEnum):
    stdout = "stdout"
    summary = "summary"
    totals = "totals"
    logfile = "logfile"
    flatfile = "flatfile"


@dataclass(frozen=True, slots=True)
class VdbenchOutput:
    output_kind: OutputKind
    case_name: str | None
    vm_name: str | None
    vdbench_version: str | None
    vdbench_build_text: str | None
    column_layout: str | None
    has_cpu_columns: bool | None
    report_created_at: dt.datetime | None
    run_count: int
    interval_count: int
    completed_successfully: bool | None


@dataclass(frozen=True, slots=True)
class VdbenchRun:
    run_index: int
    rd_name: str
    rd_text: str | None
    io_rate_text: str | None
    elapsed_s: int | None
    warmup_s: int | None
    for_loops: str | None
    is_format_run: bool
    started_tod: str | None
    state: RunState
    avg_label: str | None
    first_interval: int | None
    last_interval: int | None
    ended_tod: str | None
    interval_count: int
    iops: float | None = None
    mib_per_s: float | None = None
    bytes_per_io: int | None = None
    read_pct: float | None = None
    resp_ms: float | None = None
    read_resp_ms: float | None = None
    write_resp_ms: float | None = None
    resp_max_ms: float | None = None
    read_max_ms: float | None = None
    write_max_ms: float | None = None
    resp_stddev_ms: float | None = None
    read_stddev_ms: float | None = None
    write_stddev_ms: float | None = None
    queue_depth: float | None = None
    cpu_sys_user_pct: float | None = None
    cpu_sys_pct: float | None = None
    requested_iops: float | None = None
    is_max_rate: bool | None = None
    xfersize_bytes: int | None = None
    threads: int | None = None
    requested_read_pct: float | None = None
    read_hit_pct: float | None = None
    write_hit_pct: float | None = None
    requested_seek_pct: float | None = None
    lun_size_gib: float | None = None
    compratio_requested: float | None = None
    dedupratio_requested: float | None = None
    cpu_user_pct: float | None = None
    cpu_wait_pct: float | None = None
    cpu_idle_pct: float | None = None
    extra_json: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class VdbenchInterval:
    run_index: int
    rd_name: str
    interval_index: int
    tod: str
    tod_ms: int
    local_timestamp_text: str | None = None
    iops: float | None = None
    mib_per_s: float | None = None
    bytes_per_io: int | None = None
    read_pct: float | None = None
    resp_ms: float | None = None
    read_resp_ms: float | None = None
    write_resp_ms: float | None = None
    resp_max_ms: float | None = None
    read_max_ms: float | None = None
    write_max_ms: float | None = None
    resp_stddev_ms: float | None = None
    read_stddev_ms: float | None = None
    write_stddev_ms: float | None = None
    queue_depth: float | None = None
    cpu_sys_user_pct: float | None = None
    cpu_sys_pct: float | None = None


TABLES = {
    "vdbench_outputs": VdbenchOutput,
    "vdbench_runs": VdbenchRun,
    "vdbench_intervals": VdbenchInterval,
}

# ---------------------------------------------------------------------------------------------
# detection

# Each marker must open a line (after Vdbench's time stamp or HTML tags), so documents that merely
# quote Vdbench output (a README, PROVENANCE.md) are not taken for it.
_VERSION_LINE = re.compile(
    rb"^(?:\d\d:\d\d:\d\d\.\d{3} )?Vdbench distribution:\s+vdbench\w+", re.MULTILINE
)
_START_LINE = re.compile(rb"^(?:<[^>]*>)*\d\d:\d\d:\d\d\.\d{3} Starting RD=", re.MULTILINE)
_UNITS_LINE = re.compile(rb"^\s+rate\s+10[02]4\*\*2\s", re.MULTILINE)
_FLAT_HEADER = re.compile(rb"^\s+tod\s+(timestamp\s+)?Run\s+Interval\s", re.MULTILINE)


def detect(head: bytes, name: str) -> bool:
    """Vdbench report text: a version line, an interval header, or a flatfile header."""
    if _FLAT_HEADER.search(head):
        return True
    if _VERSION_LINE.search(head):
        return True
    return bool(_START_LINE.search(head)) and bool(_UNITS_LINE.search(head))


# ---------------------------------------------------------------------------------------------
# shared helpers

_TAG = re.compile(r"<[^>]*>")
_TOD = r"\d\d:\d\d:\d\d\.\d{3}"
_RD_LINE = re.compile(rf"^(?P<tod>{_TOD}) Starting (?P<rd>RD=.*?)\s*$")
_DATA_LINE = re.compile(rf"^(?P<tod>{_TOD})\s*(?P<label>avg_\d+-\d+|\d+)\s+(?P<rest>\S.*?)\s*$")
_AVG_LABEL = re.compile(r"^avg_(\d+)-(\d+)$")
_NUMBER = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)$|^NaN$")
_VERSION = re.compile(
    r"Vdbench distribution:\s+(?P<version>vdbench\w+)(?:\s+(?P<build>\S.*?))?\s*$"
)
_CREATED_UTC = re.compile(r"created .*\((?P<utc>\d\d:\d\d:\d\d \w{3} \d\d \d{4}) UTC\)")
_COMPLETED = "Vdbench execution completed successfully"
_FORMAT_RUNS = ("SD_format", "FSD_format")

# Field names of the numbers after the label, per (layout, has cpu) - FORMATS.md 2.5.
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


def _fail(source: SourceFile, line_no: int, reason: str) -> ParseError:
    return ParseError(source.path, f"line {line_no}", reason)


def _tod_ms(tod: str) -> int:
    hours, minutes, rest = tod.split(":")
    seconds, millis = rest.split(".")
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis)


def _num(text: str) -> float | None:
    # Vdbench prints NaN for cpu when an RD had a single interval (all-zero avg_2-1).
    return None if text == "NaN" else float(text)


def _metrics(values: list[str], names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, text in zip(names, values, strict=True):
        value = _num(text)
        out[name] = int(value) if name == "bytes_per_io" and value is not None else value
    return out


def _version_number(version: str) -> int | None:
    match = re.search(r"(\d{5})", version)
    return int(match.group(1)) if match else None


def _case_and_vm(source: SourceFile) -> tuple[str | None, str | None]:
    if source.hcibench_case is None:
        return None, None
    case_name = posixpath.basename(source.hcibench_case)
    vm_name = posixpath.splitext(source.name)[0]
    return case_name, vm_name


@dataclass(slots=True)
class _RunState:
    """A run being read: its `Starting RD=` facts, interval rows and avg_ line."""

    index: int
    rd_text: str | None
    rd_name: str
    started_tod: str | None
    intervals: list[VdbenchInterval]
    avg: dict[str, Any] | None = None
    avg_label: str | None = None
    ended_tod: str | None = None


def _rd_facts(rd_text: str) -> dict[str, Any]:
    """`RD=run1; I/O rate: Uncontrolled MAX; elapsed=300 warmup=60; For loops: None`."""
    name = rd_text[3:].split(";", 1)[0].strip()
    facts: dict[str, Any] = {
        "rd_name": name,
        "io_rate_text": None,
        "elapsed_s": None,
        "warmup_s": None,
        "for_loops": None,
    }
    rate = re.search(r"I/O rate: ([^;]*)", rd_text)
    if rate:
        facts["io_rate_text"] = rate.group(1).strip()
    elapsed = re.search(r"elapsed=(\d+)", rd_text)
    if elapsed:
        facts["elapsed_s"] = int(elapsed.group(1))
    warmup = re.search(r"warmup=(\d+)", rd_text)
    if warmup:
        facts["warmup_s"] = int(warmup.group(1))
    loops = re.search(r"For loops: (.*)$", rd_text)
    if loops:
        facts["for_loops"] = loops.group(1).strip()
    return facts


def _output_kind(text: str, name: str) -> OutputKind:
    if "Vdbench summary report" in text[:4096]:
        return OutputKind.summary
    first_lines = [_TAG.sub("", line).strip() for line in text[:2048].splitlines()[:4]]
    if "Run totals" in first_lines:
        return OutputKind.totals
    if text.lstrip().startswith(("<pre>", "<title>")) or name.endswith(".html"):
        return OutputKind.logfile
    return OutputKind.stdout


# ---------------------------------------------------------------------------------------------
# report text (stdout, summary, totals, logfile)


def _finish_run(run: _RunState) -> VdbenchRun:
    facts = _rd_facts(run.rd_text) if run.rd_text else {"rd_name": run.rd_name}
    first = last = None
    if run.avg_label:
        label = _AVG_LABEL.match(run.avg_label)
        assert label is not None
        first, last = int(label.group(1)), int(label.group(2))
    return VdbenchRun(
        run_index=run.index,
        rd_name=facts["rd_name"],
        rd_text=run.rd_text,
        io_rate_text=facts.get("io_rate_text"),
        elapsed_s=facts.get("elapsed_s"),
        warmup_s=facts.get("warmup_s"),
        for_loops=facts.get("for_loops"),
        is_format_run=facts["rd_name"] in _FORMAT_RUNS,
        started_tod=run.started_tod,
        state=RunState.ok if run.avg is not None else RunState.unfinished,
        avg_label=run.avg_label,
        first_interval=first,
        last_interval=last,
        ended_tod=run.ended_tod,
        interval_count=len(run.intervals),
        **(run.avg or {}),
    )


def _parse_report(text: str, source: SourceFile, kind: OutputKind, parsed: Parsed) -> None:
    version: str | None = None
    build: str | None = None
    layout: tuple[str, bool] | None = None
    created_at: dt.datetime | None = None
    completed = False
    runs: list[_RunState] = []
    lines = text.splitlines()
    # A last line without its newline may have been cut by a run that never finished.
    cut_line = len(lines) if text and not text.endswith("\n") else None

    for line_no, raw_line in enumerate(lines, start=1):
        line = _TAG.sub("", raw_line).rstrip()
        if not line:
            continue
        version_match = _VERSION.search(line)
        if version_match and version is None:
            version, build = version_match.group("version"), version_match.group("build")
            continue
        if _COMPLETED in line:
            completed = True
            continue
        created = _CREATED_UTC.search(line)
        if created:
            created_at = _parse_created(created.group("utc"))
            continue
        rd_match = _RD_LINE.match(line)
        if rd_match:
            rd_text = rd_match.group("rd")
            current = runs[-1] if runs else None
            # logfile.html prints each start twice (anchored and plain): one run.
            if current and current.rd_text == rd_text and not current.intervals and not current.avg:
                continue
            runs.append(
                _RunState(
                    len(runs), rd_text, _rd_facts(rd_text)["rd_name"], rd_match.group("tod"), []
                )
            )
            continue
        data = _DATA_LINE.match(line)
        if not data:
            continue
        tokens = data.group("rest").split()
        label = data.group("label")
        if not all(_NUMBER.match(t) for t in tokens):
            if label.startswith("avg_") or _NUMBER.match(tokens[0]):
                what = "totals" if label.startswith("avg_") else "interval"
                raise _fail(source, line_no, f"malformed Vdbench {what} line: non-numeric value")
            continue  # a log message that happens to start with a number
        if len(tokens) not in _LAYOUTS:
            if line_no == cut_line:
                # The VM's output stops mid-line (the run was killed): keep what came before.
                parsed.notes.append(f"line {line_no}: dropped the last line, cut short")
                continue
            raise _fail(
                source,
                line_no,
                f"expected 10, 11, 12 or 13 numbers after the interval label, found {len(tokens)}",
            )
        line_layout, has_cpu, names = _LAYOUTS[len(tokens)]
        if layout is None:
            layout = (line_layout, has_cpu)
            _check_version(source, line_no, version, line_layout)
        elif layout != (line_layout, has_cpu):
            raise _fail(
                source,
                line_no,
                f"column layout changed within the file: {len(tokens)} numbers after the label",
            )
        if not runs:
            raise _fail(source, line_no, "interval line before any 'Starting RD=' line")
        run = runs[-1]
        values = _metrics(tokens, names)
        tod = data.group("tod")
        if label.startswith("avg_"):
            if run.avg is not None:
                raise _fail(
                    source,
                    line_no,
                    f"second avg_ line for run {run.rd_name!r} without a new 'Starting RD=' line",
                )
            run.avg, run.avg_label, run.ended_tod = values, label, tod
        else:
            run.intervals.append(
                VdbenchInterval(
                    run_index=run.index,
                    rd_name=run.rd_name,
                    interval_index=int(label),
                    tod=tod,
                    tod_ms=_tod_ms(tod),
                    **values,
                )
            )

    if not runs:
        raise ParseError(
            source.path, "end of file", "no 'Starting RD=' line: not a Vdbench run report"
        )

    finished = [_finish_run(run) for run in runs]
    for run in finished:
        if run.state is RunState.unfinished and not run.is_format_run:
            parsed.notes.append(
                f"run {run.rd_name!r} (#{run.run_index}) has no avg_ line: it did not finish"
            )
    case_name, vm_name = _case_and_vm(source)
    parsed.add(
        "vdbench_outputs",
        [
            VdbenchOutput(
                output_kind=kind,
                case_name=case_name,
                vm_name=vm_name,
                vdbench_version=version,
                vdbench_build_text=build,
                column_layout=layout[0] if layout else None,
                has_cpu_columns=layout[1] if layout else None,
                report_created_at=created_at,
                run_count=len(finished),
                interval_count=sum(len(r.intervals) for r in runs),
                completed_successfully=completed
                if kind in (OutputKind.stdout, OutputKind.summary, OutputKind.logfile)
                else None,
            )
        ],
    )
    parsed.add("vdbench_runs", finished)
    parsed.add("vdbench_intervals", [i for r in runs for i in r.intervals])


def _check_version(source: SourceFile, line_no: int, version: str | None, layout: str) -> None:
    number = _version_number(version) if version else None
    if number is None:
        return
    expected = "50407" if number >= 50407 else "50406"
    if expected != layout:
        raise _fail(
            source,
            line_no,
            f"{version} prints the {expected} column layout but this line has the {layout} layout",
        )


def _parse_created(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(text, "%H:%M:%S %b %d %Y").replace(tzinfo=dt.UTC)
    except ValueError:  # a non-English month name (JVM locale)
        return None


# ---------------------------------------------------------------------------------------------
# flatfile.html

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
_FLAT_IDENTITY = {"tod", "timestamp", "Run", "Interval", "version"}
# Vdbench writes 999988 (older) or 9999988 (50407) as the requested rate of iorate=max.
_MAX_RATES = {999988.0, 9999988.0}


def _flat_value(text: str, kind: str, source: SourceFile, line_no: int, column: str) -> Any:
    if text == "n/a":
        return None
    try:
        value = float(text)
    except ValueError:
        raise _fail(source, line_no, f"column {column!r}: {text!r} is not a number") from None
    if kind == "i" and not math.isfinite(value):
        raise _fail(source, line_no, f"column {column!r}: {text!r} is not a whole number")
    return int(value) if kind == "i" else value


def _parse_flatfile(text: str, source: SourceFile, parsed: Parsed) -> None:
    header: list[str] | None = None
    version: str | None = None
    runs: list[VdbenchRun] = []
    intervals: list[VdbenchInterval] = []
    run_intervals: list[VdbenchInterval] = []
    run_name: str | None = None
    last_interval = 0

    def close(
        avg: dict[str, Any] | None, label: str | None, tod: str | None, extra: dict[str, Any] | None
    ) -> None:
        nonlocal run_intervals
        assert run_name is not None
        first = last = None
        if label:
            match = _AVG_LABEL.match(label)
            assert match is not None
            first, last = int(match.group(1)), int(match.group(2))
        runs.append(
            VdbenchRun(
                run_index=len(runs),
                rd_name=run_name,
                rd_text=None,
                io_rate_text=None,
                elapsed_s=None,
                warmup_s=None,
                for_loops=None,
                is_format_run=run_name in _FORMAT_RUNS,
                started_tod=run_intervals[0].tod if run_intervals else None,
                state=RunState.ok if avg is not None else RunState.unfinished,
                avg_label=label,
                first_interval=first,
                last_interval=last,
                ended_tod=tod,
                interval_count=len(run_intervals),
                extra_json=extra,
                **(avg or {}),
            )
        )
        intervals.extend(run_intervals)
        run_intervals = []

    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        line = _TAG.sub("", raw_line).strip()
        if not line or line.startswith("*"):
            continue
        tokens = line.split()
        if header is None:
            if tokens[0] == "tod":
                header = tokens
                if "Run" not in header or "Interval" not in header:
                    raise _fail(source, line_no, "flatfile header lacks 'Run' or 'Interval'")
            continue
        if len(tokens) != len(header):
            raise _fail(
                source,
                line_no,
                f"expected {len(header)} columns as in the header, found {len(tokens)}",
            )
        row = dict(zip(header, tokens, strict=True))
        if not re.fullmatch(_TOD, row["tod"]):
            raise _fail(source, line_no, f"column 'tod': {row['tod']!r} is not a time of day")
        if row.get("version", "n/a") != "n/a":
            version = row["version"]
        metrics = {
            field: _flat_value(row[col], kind, source, line_no, col)
            for col, (field, kind) in _FLAT_COLUMNS.items()
            if col in row
        }
        label = row["Interval"]
        is_avg = label.startswith("avg_")
        if not is_avg and not label.isdigit():
            raise _fail(
                source,
                line_no,
                f"column 'Interval': {label!r} is neither a number nor avg_<first>-<last>",
            )
        if is_avg and not _AVG_LABEL.match(label):
            raise _fail(source, line_no, f"column 'Interval': malformed label {label!r}")
        # A new run starts with a new name, or with interval numbering restarting (for loops).
        if run_name is not None and (
            row["Run"] != run_name or (not is_avg and int(label) <= last_interval)
        ):
            close(None, None, None, None)
            run_name = None
        if run_name is None:
            run_name, last_interval = row["Run"], 0
        if is_avg:
            extras = {
                field: _flat_value(row[col], kind, source, line_no, col)
                for col, (field, kind) in _FLAT_RUN_ONLY.items()
                if col in row
            }
            requested = extras.get("requested_iops")
            extras["is_max_rate"] = None if requested is None else requested in _MAX_RATES
            known = _FLAT_IDENTITY | set(_FLAT_COLUMNS) | set(_FLAT_RUN_ONLY)
            other = {col: row[col] for col in header if col not in known}
            close({**metrics, **extras}, label, row["tod"], other or None)
            run_name = None
            continue
        last_interval = int(label)
        run_intervals.append(
            VdbenchInterval(
                run_index=len(runs),
                rd_name=run_name,
                interval_index=last_interval,
                tod=row["tod"],
                tod_ms=_tod_ms(row["tod"]),
                local_timestamp_text=row.get("timestamp"),
                **metrics,
            )
        )

    if header is None:
        raise ParseError(source.path, "end of file", "no flatfile header line starting with 'tod'")
    if run_name is not None:
        close(None, None, None, None)
    if not runs:
        raise ParseError(source.path, "end of file", "flatfile has a header but no rows")
    case_name, vm_name = _case_and_vm(source)
    parsed.add(
        "vdbench_outputs",
        [
            VdbenchOutput(
                output_kind=OutputKind.flatfile,
                case_name=case_name,
                vm_name=vm_name,
                vdbench_version=version,
                vdbench_build_text=None,
                column_layout="flatfile",
                has_cpu_columns="cpu_used" in header,
                report_created_at=None,
                run_count=len(runs),
                interval_count=len(intervals),
                completed_successfully=None,
            )
        ],
    )
    parsed.add("vdbench_runs", runs)
    parsed.add("vdbench_intervals", intervals)


# ---------------------------------------------------------------------------------------------


def parse(data: bytes, source: SourceFile) -> Parsed:
    # Vdbench writes UTF-8 (locale month names such as `5月`); stray bytes should not cost the file.
    text = data.decode("utf-8", errors="replace")
    parsed = Parsed()
    if _FLAT_HEADER.search(data[:65536]):
        _parse_flatfile(text, source, parsed)
    else:
        _parse_report(text, source, _output_kind(text, source.name), parsed)
    return parsed
