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
Parameter files (parmfile.html) and response-time histograms (histogram.html) are not claimed:
the load summary names them as another report kind (`ingest.registry.unsupported_reason`). A
report that loads without a finished measurement run says why in `Parsed.no_result_reason`.

Modules: `report` (the line-based outputs), `flatfile`, `runs` (a run definition and its row),
`records` (the row types).

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

import re

from ingest.parsers.vdbench.flatfile import parse_flatfile
from ingest.parsers.vdbench.records import OutputKind, VdbenchInterval, VdbenchOutput, VdbenchRun
from ingest.parsers.vdbench.report import output_kind, parse_report
from ingest.records import Parsed, RunState, SourceFile

__all__ = [
    "FORMAT",
    "PARSER_VERSION",
    "TABLES",
    "OutputKind",
    "VdbenchInterval",
    "VdbenchOutput",
    "VdbenchRun",
    "detect",
    "parse",
]

FORMAT = "vdbench"
PARSER_VERSION = "2"

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
_FLAT_HEADER = re.compile(rb"^\s+tod\s+(timestamp\s+)?Run\s+Interval\s", re.MULTILINE)


def detect(head: bytes, name: str) -> bool:
    """Vdbench report text: a version line, an interval header, or a flatfile header."""
    if _FLAT_HEADER.search(head):
        return True
    if _VERSION_LINE.search(head):
        return True
    return bool(_START_LINE.search(head)) and bool(_UNITS_LINE.search(head))


def parse(data: bytes, source: SourceFile) -> Parsed:
    # Vdbench writes UTF-8 (locale month names such as `5月`); stray bytes should not cost the file.
    text = data.decode("utf-8", errors="replace")
    parsed = Parsed()
    if _FLAT_HEADER.search(data[:65536]):
        parse_flatfile(text, source, parsed)
    else:
        parse_report(text, source, output_kind(text, source.name), parsed)
    parsed.no_result_reason = no_result_reason(parsed)
    return parsed


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
