r"""esxtop batch-mode captures (`esxtop -b [-a] -d <s> -n <N> > out.csv`).

Usage
-----
    # as every parser (ingest.parsers):
    esxtop.parse(data, source_for(path, data)).tables["esxtop_samples"]

Example
-------
Trimmed to two of its 7,630 counters from the golden case
`esxtop/esxtop__rach-sharp_esxtopd__small-esxtop-data.csv` (a row shows some of its fields; a
long line folds after a comma with a trailing backslash, as in Python):

    $ cat esxtop-data.csv
    "(PDH-CSV 4.0) (UTC)(0)","\\localhost.home\Physical Cpu(_Total)\% Util Time",\
"\\localhost.home\Memory\Free MBytes",
    "04/26/2018 14:06:27","10.48","573",
    "04/26/2018 14:06:32","7.71","575",
    "04/26/2018 14:06:37","8.35","579",

    esxtop_captures: 1 row
      {"dialect": "quoted", "line_ending": "lf", "host_count": 1, "sample_count": 3,
       "column_count": 2, "cell_count": 6, "times_reliable": true, "utc_offset_min": 0,
       "interval_s": 5.0, "first_sampled_at": "2018-04-26T14:06:27+00:00",
       "last_sampled_at": "2018-04-26T14:06:37+00:00"}
    esxtop_counters: 2 rows
      {"counter_id": 0, "column_index": 1, "host": "localhost.home", "object_group": "Physical Cpu",
       "instance": "_Total", "counter": "% Util Time"}
      {"counter_id": 1, "column_index": 2, "host": "localhost.home", "object_group": "Memory",
       "instance": null, "counter": "Free MBytes"}
    esxtop_sample_times: 3 rows
      {"sample_index": 0, "sampled_at": "2018-04-26T14:06:27+00:00", "line_number": 2}
      {"sample_index": 1, "sampled_at": "2018-04-26T14:06:32+00:00", "line_number": 3}
      {"sample_index": 2, "sampled_at": "2018-04-26T14:06:37+00:00", "line_number": 4}
    esxtop_samples: 6 rows
      {"sample_index": 0, "counter_id": 0, "value": 10.48}
      {"sample_index": 1, "counter_id": 0, "value": 7.71}
      {"sample_index": 2, "counter_id": 0, "value": 8.35}
      {"sample_index": 2, "counter_id": 1, "value": 579.0}
      {"sample_index": 1, "counter_id": 1, "value": 575.0}
      {"sample_index": 0, "counter_id": 1, "value": 573.0}
    esxtop_malformed_cells: 0 rows
    notes: ["every line ends with a delimiter: dropped the empty last column"]

A capture is a Windows perfmon (PDH) CSV: one header row naming every counter as
`\\<host>\<Group>(<instance>)\<Counter>` and one row per sample, its first cell the sample
time. Captures are wide (7,000 to 100,000+ columns) and long (hundreds of rows), so the data
is kept long - one row per sample x counter - and parsed natively. The data lines are taken
in slices of about 8 MB (small enough to stay in the CPU's caches: half the parse time of
48 MB slices); in each, quirks are fixed in place with bytes.find/count (the missing comma,
the time cell overwritten by `0`) and one `bytes.translate` puts every cell on its own line;
then, on one of two worker threads while the next slice is readied, pyarrow's CSV reader
turns them into one float64 column and numpy reorders it counter by counter. Python only
ever loops over rows and header cells, never over cells.

One job per module: `layout` (line end, delimiter, quoting), `header` (counter names),
`repair` (esxtop's missing commas), `rows` (checking and slicing the data lines), `values`
(cells to floats, counter-major order), `times` (stamps, the PDH bias, order rules), `dedupe`
(keep the first of a repeated column or sample), `records` (rows).

Tables written (the loader adds `_source_file_id`):

`esxtop_captures` - one row per file
    pdh_header               first header cell, e.g. `(PDH-CSV 4.0) (UTC)(0)`
    dialect                  `quoted` (esxtop as written), `excel` (unquoted, comma),
                             `semicolon` (locale copy: `;` separator, `,` decimal mark)
    line_ending              `lf`, `crlf` or `cr`
    host_count, hosts_json   distinct `\\host\` names in the header
    sample_count             rows kept (= distinct sample_index; a dropped repeat leaves a gap)
    column_count             counter columns kept (= rows in esxtop_counters; a dropped
                             duplicate column leaves a gap in counter_id)
    cell_count               sample_count x column_count (= rows in esxtop_samples)
    empty_cells              cells that were empty (value NULL)
    malformed_cells          non-empty cells that are not numbers (value NULL; text kept in
                             esxtop_malformed_cells)
    repaired_cells           unquoted, space-padded cells that lacked the comma after them
                             (`PCPU Power State` block); the comma is inserted, value kept
    dropped_rows             rows not loaded (a cut last row); said in the notes too
    has_dates                False when the stamps are time-only (see "Time" below)
    times_reliable           False when the stamps step backwards or repeat (see "Order rules")
    times_note               why the times are unreliable (steps, lines), NULL when reliable
    timestamp_resolution_s   1, or 60 for Excel re-saves whose stamps lost their seconds
    utc_offset_min           the PDH bias in minutes: UTC = local time + bias
    interval_s               sample interval from the timestamps: (last - first) / (n - 1), in
                             seconds; a mean rather than a median because esxtop's steps
                             jitter (5 s asked, 5 and 6 s seen) and Excel stamps lose seconds;
                             NULL when the times are unreliable
    first_sampled_at, last_sampled_at   UTC

`esxtop_counters` - one row per counter column (Arrow schema COUNTERS_SCHEMA)
    counter_id int32         0-based, in column order; key into esxtop_samples
    column_index int32       position of the column in a row (the timestamp is column 0)
    host, object_group, instance, counter   split header; instance NULL when the group has none
    header                   the header cell as written
    is_name_inferred         True when the cell is not `\\host\...\counter` (esxtop writes an
                             unquoted `   -` after each `PCPU Power State(PCPU n)` block): host,
                             group and instance are then taken from the column before it and
                             `counter` is the cell text, stripped

`esxtop_sample_times` - one row per sample
    sample_index, sampled_at (UTC), line_number (1-based line in the file), timestamp_text

`esxtop_samples` - one row per sample x counter (Arrow schema SAMPLES_SCHEMA)
    sample_index int32, counter_id int32, value float64 (NULL for empty or malformed cells;
    the counter's own unit, e.g. `% Util Time` in percent, `MBytes Read/sec` in MB/s)
    Times live in esxtop_sample_times rather than here: a per-cell timestamp would add 8 bytes
    to every one of the (up to 10^8) cells in memory; staging joins them back on sample_index.

`esxtop_malformed_cells` - one row per non-numeric cell
    sample_index, counter_id, line_number, cell_text

Time: the PDH header's `(<zone>)(<bias>)` gives the bias in minutes (`(UTC)(0)` from esxtop),
and `sampled_at = local + bias`. Excel re-saves keep only `M/D/YYYY H:MM`: the minute is kept
as written (several samples then share it) and the interval is derived as span / (n - 1).
Time-only stamps (`22:42:26`, seen in a CR-only copy) carry no date: they are placed on
1970-01-01, a date no real capture has, so the missing date is obvious; `has_dates` is False
and a note says so. Label the run (or join by host and time of day) to place such a file in
time. A day is added only at a step that looks like a midnight: from 23:00 or later to before
01:00, the gap across midnight within two capture intervals (the median forward step) plus
the stamps' resolution.

Order rules (dated or not), so no sample is counted twice and no timeline is invented:
- a step backwards that is not such a midnight adds no day: the sample keeps its place in the
  file (sample_index) and its time as written;
- a time equal to an earlier sample's, to the second, is that sample written twice: the first
  is kept, the later ones are dropped and counted in the note (stamps without seconds share a
  minute by design and are all kept);
- either makes `times_reliable` False, `times_note` says which steps and lines, `interval_s` is
  NULL and the load summary gets a note: the capture's time window cannot be trusted.

Duplicated counter columns (same host, group, instance and counter): the first is kept, the
later ones are dropped with a note (see `dedupe`), so a repeated `% Util Time` column is never
counted twice. A broken row in the middle of the file rejects it; a cut last row (esxtop
stopped mid-write, with or without a line end after it, or a last line without its line end
whose last cell may be cut) is dropped with a note and the rest is kept.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ingest.parsers._common import is_document
from ingest.parsers.esxtop.dedupe import drop_cells, duplicate_counters
from ingest.parsers.esxtop.header import counter_table, header_cells
from ingest.parsers.esxtop.layout import BOM, PDH, Layout, read_layout
from ingest.parsers.esxtop.records import (
    COUNTERS_SCHEMA,
    SAMPLES_SCHEMA,
    EsxtopCapture,
    EsxtopMalformedCell,
    EsxtopSampleTime,
    Progress,
)
from ingest.parsers.esxtop.rows import read_rows
from ingest.parsers.esxtop.times import TimeFacts, interval_s, sample_times
from ingest.records import Parsed, ParseError, SourceFile

__all__ = [
    "COUNTERS_SCHEMA",
    "FORMAT",
    "PARSER_VERSION",
    "SAMPLES_SCHEMA",
    "TABLES",
    "EsxtopCapture",
    "EsxtopMalformedCell",
    "EsxtopSampleTime",
    "detect",
    "parse",
]

FORMAT = "esxtop"
PARSER_VERSION = "2"

TABLES: dict[str, type | pa.Schema] = {
    "esxtop_captures": EsxtopCapture,
    "esxtop_counters": COUNTERS_SCHEMA,
    "esxtop_sample_times": EsxtopSampleTime,
    "esxtop_samples": SAMPLES_SCHEMA,
    "esxtop_malformed_cells": EsxtopMalformedCell,
}


def detect(head: bytes, name: str) -> bool:
    """A PDH CSV: the first cell starts with `(PDH-CSV`, quoted or not."""
    if is_document(head, name):
        return False
    text = head.removeprefix(BOM).lstrip(b'"')
    return text.startswith(PDH)


def parse(data: bytes, source: SourceFile) -> Parsed:
    path = source.path
    data = data.removeprefix(BOM)
    layout = read_layout(data, path)
    headers = header_cells(data[: layout.body_start], layout, path)
    pdh_header = headers[0]
    if not pdh_header.lstrip().startswith("(PDH-CSV"):
        raise ParseError(
            path, "line 1, column 1", f"not an esxtop capture: starts {pdh_header[:40]!r}"
        )
    names = headers[1:]
    # A trailing delimiter on every line leaves one empty, nameless last column.
    trailing_empty = len(names) > 1 and names[-1] == ""
    counters = counter_table(names[:-1] if trailing_empty else names, path)
    progress = read_rows(data, layout, len(headers), trailing_empty, path)
    if not progress.sample_lines:
        raise ParseError(path, "line 2", "no sample rows after the header")

    parsed = Parsed()
    if trailing_empty:
        counters = _settle_trailing_column(names, counters, progress, parsed.notes, path)
    times, time_facts = sample_times(progress, pdh_header, path)
    parsed.notes.extend(time_facts.notes)
    repeated, repeated_note = duplicate_counters(counters)
    if repeated_note:
        parsed.notes.append(repeated_note)
        kept = pc.invert(pc.is_in(counters["counter_id"], pa.array(repeated, pa.int32())))
        counters = counters.filter(kept)
    samples = pa.Table.from_batches(progress.batches, schema=SAMPLES_SCHEMA)
    samples = drop_cells(samples, progress, repeated, sorted(time_facts.dropped))
    parsed.notes.extend(_reading_notes(progress))
    capture = _capture(pdh_header, layout, counters, samples, times, time_facts, progress)
    parsed.add("esxtop_captures", [capture])
    parsed.add("esxtop_counters", counters)
    parsed.add("esxtop_sample_times", times)
    parsed.add("esxtop_samples", samples)
    parsed.add("esxtop_malformed_cells", progress.malformed)
    return parsed


def _settle_trailing_column(
    names: list[str], counters: pa.Table, progress: Progress, notes: list[str], path: str
) -> pa.Table:
    """Keep the nameless last column when some of its cells hold values, else drop it."""
    if progress.trailing_values:
        notes.append(
            f"the last column has no header but {progress.trailing_values} values: "
            "kept as a nameless counter"
        )
        return counter_table(names, path)
    _drop_last_counter(progress, len(names))
    notes.append("every line ends with a delimiter: dropped the empty last column")
    return counters


def _reading_notes(progress: Progress) -> list[str]:
    """What reading the data lines changed or left out, for the load summary."""
    notes = []
    if progress.dropped_line is not None:
        notes.append(
            f"dropped truncated last row (line {progress.dropped_line}): "
            f"{progress.dropped_reason}; the capture was cut mid-row (esxtop stopped mid-write)"
        )
    if progress.repaired_cells:
        notes.append(
            f"inserted {progress.repaired_cells} missing commas after unquoted space-padded "
            "cells (PCPU Power State block)"
        )
    if progress.blank_lines:
        notes.append(f"skipped {progress.blank_lines} blank lines")
    if progress.malformed:
        notes.append(
            f"{len(progress.malformed)} non-numeric cells stored as NULL; "
            "their text is in esxtop_malformed_cells"
        )
    return notes


def _capture(
    pdh_header: str,
    layout: Layout,
    counters: pa.Table,
    samples: pa.Table,
    times: list[EsxtopSampleTime],
    time_facts: TimeFacts,
    progress: Progress,
) -> EsxtopCapture:
    hosts = sorted({h for h in counters.column("host").to_pylist() if h is not None})
    sampled = [t.sampled_at for t in times]
    return EsxtopCapture(
        pdh_header=pdh_header,
        dialect=layout.dialect,
        line_ending=layout.line_ending,
        host_count=len(hosts),
        hosts_json=hosts,
        sample_count=len(times),
        column_count=counters.num_rows,
        cell_count=samples.num_rows,
        empty_cells=progress.empty_cells,
        malformed_cells=len(progress.malformed),
        repaired_cells=progress.repaired_cells,
        dropped_rows=progress.dropped_rows,
        has_dates=time_facts.has_dates,
        times_reliable=time_facts.times_reliable,
        times_note=time_facts.times_note,
        timestamp_resolution_s=time_facts.resolution_s,
        utc_offset_min=time_facts.bias_min,
        interval_s=interval_s(sampled) if time_facts.times_reliable else None,
        first_sampled_at=min(sampled),
        last_sampled_at=max(sampled),
    )


def _drop_last_counter(progress: Progress, ncols: int) -> None:
    """Slice the (empty) last column's cells off: counter-major, they end each batch."""
    for k, batch in enumerate(progress.batches):
        nrows = batch.num_rows // ncols
        progress.batches[k] = batch.slice(0, batch.num_rows - nrows)
        progress.empty_cells -= nrows
