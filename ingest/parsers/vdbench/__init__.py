"""Vdbench output: console/stdout (HCIBench `<vm>.txt`), summary.html, totals.html, logfile.html
and flatfile.html.

Usage
-----
    # as every parser (ingest.parsers):
    vdbench.parse(data, source_for(path, data)).tables["vdbench_runs"]

Example
-------
Trimmed from the golden case
`vdbench/vdbench__masakioui_vdb_oceanstor__vdbench50407_linux_quick_test_cpu_cols__summary.html`
(a row shows some of its fields; a long line folds with a trailing backslash):

    $ cat summary.html
    <title>Vdbench output/summary.html</title><pre>
    Copyright (c) 2000, 2018, Oracle and/or its affiliates. All rights reserved.
    Vdbench summary report, created 09:42:35 Oct 09 2019 ICT (02:42:35 Oct 09 2019 UTC)

    Link to HOST reports:            <A HREF="localhost.html">localhost</A>

    <a name="_1724731843"></a><i><b>09:42:37.002 Starting RD=rd1; I/O rate: 100; elapsed=5; For\
 loops: None</b></i>

    Oct 09, 2019    interval        i/o   MB/sec   bytes   read     resp     read    write     read\
    write     resp  queue  cpu%  cpu%
                                   rate  1024**2     i/o    pct     time     resp     resp      max\
      max   stddev  depth sys+u   sys
    09:42:38.044           1       63.0     0.06    1024  46.03    0.011    0.008    0.013     0.03\
     0.03    0.006    0.0   9.7   2.7
    09:42:39.006           2       96.0     0.09    1024  53.13    0.009    0.007    0.011     0.03\
     0.03    0.005    0.0   3.1   1.0
    09:42:40.006           3       96.0     0.09    1024  52.08    0.009    0.007    0.010     0.07\
     0.02    0.008    0.0   1.5   0.3
    09:42:41.006           4      112.0     0.11    1024  51.79    0.007    0.005    0.009     0.02\
     0.03    0.004    0.0   1.0   0.3
    09:42:42.011           5       87.0     0.08    1024  57.47    0.008    0.006    0.011     0.03\
     0.02    0.005    0.0   3.0   0.3
    09:42:42.024     avg_2-5       97.8     0.10    1024  53.45    0.008    0.006    0.010     0.07\
     0.03    0.006    0.0   2.1   0.4
    09:42:43.225 Vdbench execution completed successfully

    vdbench_outputs: 1 row
      {"output_kind": "summary", "column_layout": "50407", "has_cpu_columns": true,
       "report_created_at": "2019-10-09T02:42:35+00:00", "run_count": 1, "interval_count": 5,
       "completed_successfully": true, "host_count": 1}
    vdbench_runs: 1 row
      {"run_index": 0, "rd_name": "rd1", "io_rate_text": "100", "elapsed_s": 5, "state": "ok",
       "avg_label": "avg_2-5", "iops": 97.8, "mib_per_s": 0.1, "bytes_per_io": 1024,
       "read_pct": 53.45, "resp_ms": 0.008, "read_max_ms": 0.07, "write_max_ms": 0.03,
       "queue_depth": 0.0, "cpu_sys_user_pct": 2.1}
    vdbench_intervals: 5 rows
      {"interval_index": 1, "tod": "09:42:38.044", "iops": 63.0, "resp_ms": 0.011}
      {"interval_index": 2, "tod": "09:42:39.006", "iops": 96.0, "resp_ms": 0.009}
      {"interval_index": 3, "tod": "09:42:40.006", "iops": 96.0, "resp_ms": 0.009}
      {"interval_index": 4, "tod": "09:42:41.006", "iops": 112.0, "resp_ms": 0.007}
      {"interval_index": 5, "tod": "09:42:42.011", "iops": 87.0, "resp_ms": 0.008}

HCIBench runs one Vdbench per worker VM and keeps its stdout as `<vm>.txt` in the test-case
folder; users who ran Vdbench by hand keep its output folder. All of these carry the same lines
(`HH:MM:SS.mmm Starting RD=...`, interval lines, one `avg_<first>-<last>` totals line per run
definition), except flatfile.html, a table read by column name. See FORMATS.md 2.5.

Column layouts of interval/totals lines of a raw (sd/wd) run (numbers after the label; told
apart by counting):
12 / 10 = vdbench50401-50406 with / without the cpu columns (one `resp max`),
13 / 11 = vdbench50407 with / without the cpu columns (`read max`, `write max`).
A file-system (fsd/fwd) run prints a header naming its column groups (`..Interval..
.ReqstdOps... ...cpu%... read ....read..... ....write.... ..mb/sec... mb/sec .xfer.. ....open....`,
then one `rate resp` pair per file operation it reports), read group by group (FORMATS.md 2.5).
Its `ReqstdOps` rate/resp fill iops/resp_ms, `xfer size` the mean bytes_per_io; its
`std_`/`max_` lines are not read. Its automatic file-creation run is `format_for_<rd>`.
MB/sec is MiB/s (Vdbench prints `1024**2` under it): stored as `mib_per_s`. Latencies are ms.
Pages that report one part of a run (`fsd1.html`, `localhost-0.html`, `sd1.html`, ...) are not
claimed: loading them too would count the run twice.
Parameter files (parmfile.html) and response-time histograms (histogram.html) are not claimed:
the load summary names them as another report kind (`ingest.registry.unsupported_reason`). A
report that loads without a finished measurement run says why in `Parsed.no_result_reason`.

Modules: `report` (the line-based outputs), `flatfile`, `runs` (a run definition and its row),
`xfersize` (the configured transfer size), `records` (the row types).

Tables
------
`vdbench_outputs` (one row per file):
    output_kind            `stdout` | `summary` | `totals` | `logfile` | `flatfile`
    case_name, vm_name     HCIBench test case folder name and worker VM (file stem) when the
                           file sits in a test case, else None
    vdbench_version        `vdbench50407` from the `Vdbench distribution:` line (stdout and
                           logfile only), or a flatfile `version` value other than `n/a`
    vdbench_build_text     what follows the version on that line (`Tue June 05  9:49:29 MDT 2018`)
    column_layout          `50406` (50401-50406) | `50407` | `filesystem` (header-named
                           groups of a file-system run) | `flatfile`
    workload_kind          `raw` (sd/wd, iorate) | `filesystem` (fsd/fwd, fwdrate): what the
                           run drove; None for a report without a data line
    has_cpu_columns        whether interval lines carry `cpu% sys+u` / `cpu% sys`
    report_created_at      summary.html `created ... (... UTC)` time, UTC; None when not given
    run_count, interval_count
    completed_successfully `Vdbench execution completed successfully` was printed (None for
                           totals/flatfile, which never print it)
    host_count             load-generator hosts the report shows: the anchors of summary.html's
                           `Link to HOST reports:` (`hd1`, `hd2`; localhost for a local run),
                           else the hosts of the slave names (`hd1-0` -> `hd1`); None when the
                           report does not say (totals.html, flatfile.html)
    slave_count            slave JVMs named in `Starting slave: ... -l hd1-0` / `Slave hd1-0
                           connected` lines (stdout, logfile.html); None when none is printed.
                           dbt counts a result's `vm_count` as the sum of `host_count` over its
                           outputs (1 for an output that does not say: one HCIBench VM's stdout)

`vdbench_runs` (one row per run definition, i.e. per `Starting RD=` or flatfile run):
    run_index              0-based order in the file (an automatic `SD_format` run counts too)
    rd_name, rd_text       `rd1`; `RD=rd1; I/O rate: 100; elapsed=5; For loops: None` (the text
                           HCIBench keeps as `Run Def`)
    elapsed_s, warmup_s, for_loops   parsed from rd_text
    io_rate_text           `Uncontrolled MAX`, `100`; a file-system run's `fwdrate` (`max`)
    is_format_run          Vdbench's automatic `SD_format`/`FSD_format`/`format_for_<rd>` run
                           (not a measurement)
    started_tod            time of day of the `Starting RD=` line, `HH:MM:SS.mmm` (local time)
    state                  `ok` (has an avg_ line) | `unfinished` (no avg_ line: the run did not
                           finish; metric columns are None, its intervals are kept)
    state_reason           why a run is unfinished (`no avg_ line after 6 interval line(s) (the
                           last, 6, at 15:52:26.022): the run was cut short; ...`), else None
    avg_label, first_interval, last_interval, ended_tod   `avg_2-60`, 2, 60, tod of that line
    interval_count         interval lines seen for the run
    iops, mib_per_s, bytes_per_io, read_pct, resp_ms, read_resp_ms, write_resp_ms,
    resp_max_ms (50406 and flatfile), read_max_ms, write_max_ms (50407),
    resp_stddev_ms, read_stddev_ms, write_stddev_ms (flatfile 50407), queue_depth,
    cpu_sys_user_pct, cpu_sys_pct  the avg_ line as printed. bytes_per_io is the mean bytes an
                           I/O moved (`bytes i/o`, a file-system run's `xfer size`): a
                           measure, not a block size (7,832 for an xfersize distribution,
                           4,093 for xfersize=4k on files of odd sizes)
    read_iops, write_iops, read_mib_per_s, write_mib_per_s   file-system runs only
    latency_kind           `total` (`ingest.records.LatencyKind`): every latency of the row
                           (resp, read/write resp, max, stddev, operations' resp) is Vdbench's
                           response time; None when the row has none
    fs_operations_json     file-system runs only: {"open": {"rate_per_s": 42.8, "resp_ms":
                           0.048}, ...}, one entry per file operation (mkdir, rmdir, create,
                           open, close, delete, getattr, setattr, access, copy, move) the line
                           prints
    xfersize_bytes         the configured transfer size when the output holds it (module
                           `xfersize`): the raw flatfile's `xfersize` when the run's bytes per
                           I/O equal it, a `For loops: xfersize=` run line, wd=/fwd=/rd=
                           parameter lines in the same text, or the HCIBench case's name;
                           else None
    xfersize_source        `flatfile` | `for_loops` | `parameter_file` | `hcibench_case` (the
                           case folder's name, HCIBench's parameter file) | None
    xfersize_unknown_reason  why xfersize_bytes is None (`the flatfile's xfersize 512 is not
                           what the I/Os moved (7,832 bytes per I/O): a transfer-size
                           distribution ...`, `the output does not print the configured
                           xfersize (...)`), else None
    requested_iops, is_max_rate, threads, requested_read_pct, read_hit_pct,
    write_hit_pct, requested_seek_pct, lun_size_gib, compratio_requested,
    dedupratio_requested, cpu_user_pct, cpu_wait_pct, cpu_idle_pct   flatfile avg_ row only
    extra_json             flatfile columns not listed above (e.g. older `ks_*`), as printed

`vdbench_intervals` (one row per interval line):
    run_index, rd_name, interval_index, tod, tod_ms (ms after local midnight),
    local_timestamp_text (flatfile 50407 `timestamp`, e.g. `10/09/2019-14:41:22-ICT`),
    iops ... cpu_sys_pct, read_iops ... fs_operations_json, latency_kind   same meaning as in
                           vdbench_runs
"""

from __future__ import annotations

import re
from dataclasses import replace

from ingest.parsers._common import hcibench_case_name, is_document
from ingest.parsers.vdbench.flatfile import parse_flatfile
from ingest.parsers.vdbench.records import (
    FsOperation,
    Measures,
    OutputKind,
    VdbenchInterval,
    VdbenchOutput,
    VdbenchRun,
    WorkloadKind,
    XfersizeSource,
)
from ingest.parsers.vdbench.report import output_kind, parse_report
from ingest.parsers.vdbench.xfersize import with_configured_xfersize
from ingest.records import LatencyKind, Parsed, RunState, SourceFile

__all__ = [
    "FORMAT",
    "PARSER_VERSION",
    "TABLES",
    "FsOperation",
    "OutputKind",
    "VdbenchInterval",
    "VdbenchOutput",
    "VdbenchRun",
    "WorkloadKind",
    "XfersizeSource",
    "detect",
    "parse",
]

FORMAT = "vdbench"
# 3: file-system runs, state_reason, workload_kind; 4: xfersize_bytes only a configured size;
# 5: latency_kind
PARSER_VERSION = "6"

TABLES = {
    "vdbench_outputs": VdbenchOutput,
    "vdbench_runs": VdbenchRun,
    "vdbench_intervals": VdbenchInterval,
}

# Each marker must open a line (after Vdbench's time stamp or HTML tags), so documents that merely
# quote Vdbench output (a README, PROVENANCE.md) are not taken for it.
_VERSION_LINE = re.compile(
    rb"^(?:\d\d:\d\d:\d\d\.\d{3} )?Vdbench distribution:\s+vdbench\w+", re.MULTILINE
)
_START_LINE = re.compile(rb"^(?:<[^>]*>)*\d\d:\d\d:\d\d\.\d{3} Starting RD=", re.MULTILINE)
_UNITS_LINE = re.compile(rb"^\s+rate\s+10[02]4\*\*2\s", re.MULTILINE)
# A file-system run's column header (`Apr 11, 2019 ..Interval.. .ReqstdOps... ...cpu%...`).
_FS_HEADER_LINE = re.compile(rb"^\S.*\.Interval\.+\s+\.ReqstdOps\.", re.MULTILINE)
_FLAT_HEADER = re.compile(rb"^\s+tod\s+(timestamp\s+)?Run\s+Interval\s", re.MULTILINE)
# The pages that report a whole run. The others repeat its lines for one part of it (a host,
# slave, SD, WD, FSD or FWD): loading them too would count the run twice, or a part as all.
_WHOLE_RUN_PAGES = {"summary.html", "totals.html", "logfile.html", "flatfile.html"}
_PAGE_TITLE = re.compile(rb"<title>Vdbench [^<]*?/(?P<page>[\w.-]+\.html)</title>")
_PART_PAGE_FIRST_LINE = re.compile(
    rb"^(?:<[^>]*>)*\s*(?:Report for (?:sd|wd|fsd|fwd) |Host summary report|Slave summary "
    rb"report|stdout/stderr for slave)"
)


def _part_page(head: bytes) -> bool:
    """A report page for one part of a run (named by its <title>, or by its first line)."""
    titled = _PAGE_TITLE.search(head[:1024])
    if titled:
        return titled["page"].decode("ascii", errors="replace") not in _WHOLE_RUN_PAGES
    lines = [line for line in head[:2048].splitlines() if line.strip()]
    return any(_PART_PAGE_FIRST_LINE.match(line) for line in lines[:2])


# Text each detection pattern's match must hold: a substring test (memchr speed) skips the
# regex on the heads of other formats, which was most of a fio file's detection time (every
# format before fio is asked first, and each regex walked the 64 KiB head).
_LITERALS = {
    _FLAT_HEADER: b"tod",
    _VERSION_LINE: b"Vdbench distribution:",
    _START_LINE: b" Starting RD=",
    _UNITS_LINE: b"**2",
    _FS_HEADER_LINE: b".ReqstdOps.",
}


def _found(pattern: re.Pattern[bytes], head: bytes) -> bool:
    return _LITERALS[pattern] in head and pattern.search(head) is not None


def detect(head: bytes, name: str) -> bool:
    """Vdbench report text: a version line, an interval header (raw or file-system), or a
    flatfile header; not a page that reports one part of a run."""
    if is_document(head, name) or _part_page(head):
        return False
    if _found(_FLAT_HEADER, head) or _found(_VERSION_LINE, head):
        return True
    return _found(_START_LINE, head) and (
        _found(_UNITS_LINE, head) or _found(_FS_HEADER_LINE, head)
    )


def parse(data: bytes, source: SourceFile) -> Parsed:
    # Vdbench writes UTF-8 (locale month names such as `5月`); stray bytes should not cost the file.
    text = data.decode("utf-8", errors="replace")
    parsed = Parsed()
    if _FLAT_HEADER.search(data[:65536]):
        parse_flatfile(text, source, parsed)
    else:
        parse_report(text, source, output_kind(text, source.name), parsed)
    parsed.tables["vdbench_runs"] = with_configured_xfersize(
        parsed.tables["vdbench_runs"], text, hcibench_case_name(source)
    )
    for table in ("vdbench_runs", "vdbench_intervals"):
        parsed.tables[table] = [_with_latency_kind(row) for row in parsed.tables[table]]
    parsed.no_result_reason = no_result_reason(parsed)
    return parsed


def _with_latency_kind(row: Measures) -> Measures:
    """Vdbench's response time is total latency: a row with one says so."""
    if row.resp_ms is None:
        return row
    return replace(row, latency_kind=LatencyKind.total)


def no_result_reason(parsed: Parsed) -> str | None:
    """Why a Vdbench file that loads yields no workload result, or None when it does: a
    result is a finished (avg_ line) run that is not Vdbench's automatic format run."""
    runs: list[VdbenchRun] = parsed.tables.get("vdbench_runs", [])  # type: ignore[assignment]
    measured = [r for r in runs if not r.is_format_run]
    if any(r.state is RunState.ok for r in measured):
        return None
    output: VdbenchOutput = parsed.tables["vdbench_outputs"][0]  # type: ignore[index]
    if not measured:
        return "only Vdbench's automatic format run: no workload was measured"
    if output.interval_count == 0:
        return (
            f"a Vdbench {output.output_kind} without interval or avg_ lines: "
            "this report carries no measurements"
        )
    names = ", ".join(repr(r.rd_name) for r in measured[:3])
    return f"no run finished (no avg_ line, the run was cut short): {names}"
