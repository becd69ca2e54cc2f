"""fio output in every form users keep: JSON, json+, terse, and normal text.

Usage
-----
    # as every parser (ingest.parsers):
    fio.parse(data, source_for(path, data)).tables["fio_job_directions"]

Example
-------
Trimmed from the golden case `fio/fio__fioplot__fio-3.14__randread-1-1.json` (one job of
`fio --output-format=json`, percentiles and most keys left out; a row shows some of its fields):

    $ cat randread-1-1.json
    {
      "fio version" : "fio-3.14-6-g97134",
      "timestamp" : 1566772963,
      "timestamp_ms" : 1566772963019,
      "time" : "Mon Aug 26 00:42:43 2019",
      "jobs" : [
        {
          "jobname" : "random-read",
          "groupid" : 0,
          "error" : 0,
          "eta" : 0,
          "elapsed" : 61,
          "job options" : {
            "rw" : "randread",
            "bs" : "4k",
            "ioengine" : "libaio",
            "iodepth" : "1",
            "runtime" : "60",
            "filename" : "/dev/sdf"
          },
          "read" : {
            "io_bytes" : 2139865088,
            "bw_bytes" : 35663823,
            "iops" : 8706.988217,
            "runtime" : 60001,
            "total_ios" : 522428,
            "clat_ns" : {
              "min" : 1288,
              "max" : 319958,
              "mean" : 103252.531844,
              "stddev" : 15822.745529
            },
            "lat_ns" : {
              "min" : 39296,
              "max" : 336286,
              "mean" : 112799.599709,
              "stddev" : 16263.658258
            }
          },
          "job_runtime" : 60000,
          "usr_cpu" : 5.305,
          "sys_cpu" : 11.656667
        }
      ]
    }

    fio_runs: 1 row
      {"run_index": 0, "fio_version": "fio-3.14-6-g97134", "output_format": "json",
       "is_finished": true, "ended_at": "2019-08-25T22:42:43.019000+00:00"}
    fio_jobs: 1 row
      {"job_index": 0, "jobname": "random-read", "state": "ok", "elapsed_s": 61,
       "job_runtime_ms": 60000, "rw": "randread", "read_pct": 100, "random_pct": 100,
       "block_size_bytes": 4096, "iodepth": 1, "numjobs": 1, "ioengine": "libaio",
       "usr_cpu_pct": 5.305, "sys_cpu_pct": 11.656667}
    fio_job_directions: 1 row
      {"job_index": 0, "direction": "read", "total_ios": 522428, "io_bytes": 2139865088,
       "bw_bytes_per_s": 35663823.0, "iops": 8706.988217, "runtime_ms": 60001,
       "clat_mean_ns": 103252.531844, "lat_mean_ns": 112799.599709, "lat_max_ns": 336286.0}
    fio_disk_util: 0 rows

Forms read (see docs/FORMATS.md section 1):

- JSON from fio 2.x (latencies in usec under `slat`/`clat`/`lat`, `io_bytes` in
  KiB before fio-2.21, integer IOPS, duplicate `"0.00"` percentile keys) and
  fio 3.x (`*_ns` in ns); json+ (latency histogram `bins` kept);
- several JSON documents in one file: `--status-interval` dumps (cumulative;
  the final one has `eta == 0`, a file without it is an unfinished run, unless
  its last document says eta INT_MAX and every job ran its runtime or size: a
  run shorter than about 1 s, whose final report fio 3.33 writes so) and
  `--output-format=normal,json`; text before the JSON (warnings, errors,
  `fio: terminating on signal 2`, client banners and ETA lines) is kept;
- client/server output: `client_stats` entries keep their host; the
  "All clients" aggregate is stored but flagged, never summed with them;
- terse/minimal versions 2, 3, 4 and 5 (usec, integer IOPS), including the
  client-mode ETA text glued in front of the first record;
- the normal human-readable report, as a last resort: the unit changes per
  line (nsec/usec/msec, KiB/MiB/GiB, `k`/`M` suffixes); with
  `--status-interval` each job block repeats and the last one is the result;
  fio 2.x (`read : io=..., bw=..., iops=..., runt=...`, `issued : total=r=/w=/d=`)
  and 3.x layouts; unified reporting (`mixed:` lines, `MIXED:` group lines);
  `bs=` in every printed form (2.x `4K-4K/4K-4K/4K-4K`, 3.x `(R) 4096B-4096B,
  (W) ...`), the block size of the directions the job's `rw` issues. A job
  block without its group's `Run status group G` line after it was cut: the
  job is `unfinished`, never a result. Client/server reports (`<host> `
  prefixes, the `All clients` block after the disk stats) too;
- terse lines next to the report (`--output-format=normal,terse`, a console
  transcript): numbers from the terse record, job options from the report's
  definition lines. Terse alone: block size derived from bytes per I/O when
  exactly one power of two fits (`is_block_size_derived`).

A failed job (FORMATS.md 1.9) is stored in every form with state `error`,
fio's error code and fio's own words with their line (`state_reason`: `fio
reported error 13 for this job: func=open(/x), error=Permission denied (line 4,
file:filesetup.c:805)`), from the block header's parentheses or fio's `fio:
pid=..., err=13/...` line; the normal report prints no block for a job that
failed before any I/O, so its definition line and that error line make its
row. The file loads without a result unless another job is one. Terse prints
zero percentiles for a direction without I/O: they are left out, as JSON does.

Impossible values are never a result (`soundness`): a latency longer than the
job ran (fio 2.1 overflow), negative, NaN/Infinity or past 2^63 is NULL with
`unsound_reason` on the direction row; an unsound IOPS/bandwidth/count rejects
the file at the line of the job's values (terse, normal report) or with the
job and direction (JSON). Any other rejection of the text forms names the line
that holds the problem. A file that loads without a result (every
job unfinished or in error, no direction rows) says why in
`Parsed.no_result_reason`. With `unified_rw_reporting=both` the `mixed` rows
(read + write again) are dropped so no I/O is counted twice.

Tables (one row per ...), all keyed by `run_index` (fio invocations in the
file, normally one) and `job_index` (entry of fio's `jobs[]`/`client_stats[]`):

- `fio_runs`        run: fio_version, output_format, terse_version,
                    is_client_mode, status_dump_count, is_finished, ended_at,
                    local_time_text, global_options_json, leading_text
- `fio_jobs`        job entry: jobname, groupid, hostname, port,
                    is_all_clients_aggregate, state (ok/error/unfinished),
                    state_reason, error_code, eta_s, elapsed_s,
                    job_runtime_ms (fio's own: summed over a group's threads),
                    started_at, ended_at, usr_cpu_pct,
                    sys_cpu_pct (percent of one CPU), ctx, majf, minf, rw,
                    read_pct, random_pct, block_size_bytes, iodepth, numjobs,
                    ioengine, options_json, workload_key, percentile_kind,
                    is_block_size_derived
- `fio_job_directions`  job x direction (read/write/trim/mixed/sync):
                    total_ios (is_total_ios_derived when fio 2.1 lacked it),
                    short_ios, drop_ios, io_bytes, bw_bytes_per_s, iops,
                    runtime_ms, {slat,clat,lat}_{min,max,mean,stddev}_ns and
                    _samples, bw_{min,max,mean,stddev}_kib_per_s, bw_agg_pct,
                    bw_samples, iops_{min,max,mean,stddev}, iops_samples,
                    unsound_reason, avg_latency_mean_ns and avg_latency_kind
                    (the mean latency the row offers and its span, a
                    `LatencyKind`: `total` = fio's lat mean when it is there and
                    sound, else `completion` = its clat mean, e.g. an overflowed
                    fio 2.1 lat; None for a direction that did no I/O)
- `fio_latency_percentiles`  job x direction x kind x percentile: latency_ns;
                    latency_kind in fio's words: `lat` (total), `clat`
                    (completion), `slat` (submission)
- `fio_latency_bins`  job x direction x kind (as above) x bucket (json+): bin_ns,
                    io_count
- `fio_intervals`   job x status dump x direction, differenced from the
                    cumulative dumps: elapsed_end_ms, interval_ms, ios,
                    io_bytes, iops, bw_bytes_per_s, lat_mean_ns, avg_latency_kind
                    (`total` when lat_mean_ns is fio's lat, `completion` when
                    the dumps had only clat)
- `fio_jobs.percentile_kind` names the main percentile list's kind the same way
                    (`lat` or `clat`)

Modules: `json_output` (JSON streams) with `json_documents`, `json_directions` and
`intervals`; `terse`; `normal`; `workload` (what the job options asked for); `records` (row
types); `text` (fio's free text); `soundness` (impossible values, whether a
file holds a result). This module is the parser contract the registry reads.
"""

from __future__ import annotations

import re

from ingest.parsers._common import (
    bad_value_line,
    is_document,
    parse_size_bytes,
    without_cycle_collection,
)
from ingest.parsers.fio.json_output import parse_json_stream
from ingest.parsers.fio.normal import is_normal_report, parse_normal
from ingest.parsers.fio.records import TABLES, RowLines
from ingest.parsers.fio.soundness import (
    check_soundness,
    drop_repeated_mixed,
    reject_unsound_values,
    result_gap,
    with_average_latency,
)
from ingest.parsers.fio.terse import TERSE_LINE, TERSE_V2, parse_terse
from ingest.parsers.fio.text import no_result_location, no_result_reason
from ingest.parsers.fio.workload import workload_of
from ingest.records import Parsed, ParseError, SourceFile

__all__ = [
    "FORMAT",
    "PARSER_VERSION",
    "TABLES",
    "detect",
    "parse",
    "parse_size_bytes",
    "workload_of",
]

FORMAT = "fio"
# 3: the final report is the last eta == 0 document; 4: failed jobs of the normal report stored
# (state error, fio's words), no terse percentiles for a direction without I/O; 5: the average
# latency and its kind
PARSER_VERSION = "5"

_JSON_MARK = re.compile(rb'"(fio version|client_stats)"\s*:')
# Lines only fio's report has; in client mode after the server's `<host> ` prefix.
_NORMAL_MARKS = re.compile(
    rb"^(?:<[^>\n]+> )?(fio-\d+\.\d+\S*\s*$|Starting \d+ (process|thread)|"
    rb".*\(groupid=\d+, jobs=\d+\): err=|fio: )",
    re.MULTILINE,
)


def _terse_v2_record(text: str) -> bool:
    """A terse v2 line (no fio version field) is only told apart by its 100+ fields."""
    return (
        bool(TERSE_V2.search(text))
        and max((ln.count(";") for ln in text.splitlines()), default=0) >= 100
    )


def detect(head: bytes, name: str) -> bool:
    if is_document(head, name):
        return False
    if _JSON_MARK.search(head):
        return True
    text = head.decode("utf-8", errors="replace")
    if TERSE_LINE.search(text) or _terse_v2_record(text):
        return True
    return bool(_NORMAL_MARKS.search(head))


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:  # a search that finds nothing costs less than a replace that changes nothing
        text = text.replace("\r\n", "\n")
    if not text or text.isspace():  # not `strip()`: a copy of the whole text
        raise ParseError(source.path, "byte 0", "empty file: fio wrote no output")
    with without_cycle_collection():  # 720 status dumps decode to about 17,000 maps and lists
        parsed, lines = _parse_form(data, text, source)
        drop_repeated_mixed(parsed)
        check_soundness(parsed, source, lines)
        with_average_latency(parsed)
        reject_unsound_values(parsed, source, lines)
    parsed.no_result_reason = result_gap(parsed)
    return parsed


def _parse_form(data: bytes, text: str, source: SourceFile) -> tuple[Parsed, RowLines]:
    """The file read as the form it holds: JSON first (exact), then terse, then the report;
    with the line of each direction's values in the text forms."""
    try:
        if _JSON_MARK.search(data):
            return parse_json_stream(text, source), {}
        if TERSE_LINE.search(text) or TERSE_V2.search(text):
            return parse_terse(text, source)
        if is_normal_report(text):
            return parse_normal(text, source)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        # A value of the wrong shape where fio writes a number ("5.095.00", a string in a
        # JSON percentile map): a corrupt file, not a parser bug. The text readers say the
        # line themselves; here the first line quoting the value is the best there is.
        location = bad_value_line(text, exc)
        raise ParseError(source.path, location, f"value of the wrong type: {exc}") from None
    raise ParseError(source.path, no_result_location(text), no_result_reason(text))
