r"""esxtop batch-mode captures (`esxtop -b [-a] -d <s> -n <N> > out.csv`).

A capture is a Windows perfmon (PDH) CSV: one header row naming every counter as
`\\<host>\<Group>(<instance>)\<Counter>` and one row per sample, its first cell the sample
time. Captures are wide (7,000 to 100,000+ columns) and long (hundreds of rows), so the data
is kept long - one row per sample x counter - and parsed natively. The data lines are taken
in slices of about 48 MB; in each, quirks are fixed in place with bytes.find/count (the
missing comma, the time cell overwritten by `0`), one `bytes.translate` puts every cell on its
own line, pyarrow's CSV reader turns them into one float64 column, and numpy reorders it
counter by counter. Python only ever loops over rows and header cells, never over cells.

Tables written (the loader adds `_source_file_id`):

`esxtop_captures` - one row per file
    pdh_header               first header cell, e.g. `(PDH-CSV 4.0) (UTC)(0)`
    dialect                  `quoted` (esxtop as written), `excel` (unquoted, comma),
                             `semicolon` (locale copy: `;` separator, `,` decimal mark)
    line_ending              `lf`, `crlf` or `cr`
    host_count, hosts_json   distinct `\\host\` names in the header
    sample_count             rows kept (= distinct sample_index)
    column_count             counter columns kept (= rows in esxtop_counters)
    cell_count               sample_count x column_count (= rows in esxtop_samples)
    empty_cells              cells that were empty (value NULL)
    malformed_cells          non-empty cells that are not numbers (value NULL; text kept in
                             esxtop_malformed_cells)
    repaired_cells           unquoted, space-padded cells that lacked the comma after them
                             (`PCPU Power State` block); the comma is inserted, value kept
    dropped_rows             rows not loaded (a truncated last row); said in the notes too
    has_dates                False when the stamps are time-only (see "Time" below)
    timestamp_resolution_s   1, or 60 for Excel re-saves whose stamps lost their seconds
    utc_offset_min           the PDH bias in minutes: UTC = local time + bias
    interval_s               sample interval from the timestamps: (last - first) / (n - 1), in
                             seconds; a mean rather than a median because esxtop's steps
                             jitter (5 s asked, 5 and 6 s seen) and Excel stamps lose seconds
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
1970-01-01, a date no real capture has, adding a day when the clock goes backwards (midnight),
so ordering and intervals stay right and the missing date is obvious; `has_dates` is False and
a note says so. Label the run (or join by host and time of day) to place such a file in time.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest.records import Parsed, ParseError, SourceFile

FORMAT = "esxtop"
PARSER_VERSION = "1"

_BOM = b"\xef\xbb\xbf"
_PDH = b"(PDH-CSV"
# Lines are processed in slices of about this many bytes, bounding the transient copies.
_CHUNK_BYTES = 48 << 20
_EPOCH_DAY = dt.date(1970, 1, 1)
_BLOCK = 1024  # counters per transpose block; even, so block starts keep the snake's parity

_BIAS = re.compile(r"\((-?\d+)\)\s*$")
_HEADER_NAME = (
    r"^\\\\(?P<host>[^\\]*)\\(?P<group>[^\\(]*?)(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]*)$"
)
_HAS_INSTANCE = r"^\\\\[^\\]*\\[^\\(]*\("
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$"


@dataclass(frozen=True, slots=True)
class EsxtopCapture:
    pdh_header: str
    dialect: str
    line_ending: str
    host_count: int
    hosts_json: list[str]
    sample_count: int
    column_count: int
    cell_count: int
    empty_cells: int
    malformed_cells: int
    repaired_cells: int
    dropped_rows: int
    has_dates: bool
    timestamp_resolution_s: int
    utc_offset_min: int
    interval_s: float | None
    first_sampled_at: dt.datetime | None
    last_sampled_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class EsxtopSampleTime:
    sample_index: int
    sampled_at: dt.datetime
    line_number: int
    timestamp_text: str


@dataclass(frozen=True, slots=True)
class EsxtopMalformedCell:
    sample_index: int
    counter_id: int
    line_number: int
    cell_text: str


COUNTERS_SCHEMA = pa.schema(
    [
        ("counter_id", pa.int32()),
        ("column_index", pa.int32()),
        ("host", pa.string()),
        ("object_group", pa.string()),
        ("instance", pa.string()),
        ("counter", pa.string()),
        ("header", pa.string()),
        ("is_name_inferred", pa.bool_()),
    ]
)

SAMPLES_SCHEMA = pa.schema(
    [
        ("sample_index", pa.int32()),
        ("counter_id", pa.int32()),
        ("value", pa.float64()),
    ]
)

TABLES: dict[str, type | pa.Schema] = {
    "esxtop_captures": EsxtopCapture,
    "esxtop_counters": COUNTERS_SCHEMA,
    "esxtop_sample_times": EsxtopSampleTime,
    "esxtop_samples": SAMPLES_SCHEMA,
    "esxtop_malformed_cells": EsxtopMalformedCell,
}


def detect(head: bytes, name: str) -> bool:
    """A PDH CSV: the first cell starts with `(PDH-CSV`, quoted or not."""
    text = head.removeprefix(_BOM).lstrip(b'"')
    return text.startswith(_PDH)


@dataclass(frozen=True, slots=True)
class _Layout:
    """How the file is written, learnt from its header line."""

    body_start: int  # byte offset of the first data line
    terminator: bytes
    line_ending: str
    delimiter: bytes
    quoted: bool
    dialect: str


@dataclass(slots=True)
class _Progress:
    """Running totals while the data lines are read."""

    sample_lines: list[int] = field(default_factory=list)
    stamps: list[str] = field(default_factory=list)
    batches: list[pa.RecordBatch] = field(default_factory=list)
    malformed: list[EsxtopMalformedCell] = field(default_factory=list)
    empty_cells: int = 0
    repaired_cells: int = 0
    blank_lines: int = 0
    dropped_rows: int = 0
    trailing_values: int = 0
    dropped_line: int | None = None
    id_cache: dict[int, tuple[np.ndarray, pa.Array]] = field(default_factory=dict)


def parse(data: bytes, source: SourceFile) -> Parsed:
    path = source.path
    data = data.removeprefix(_BOM)
    layout = _layout(data, path)
    headers = _header_cells(data[: layout.body_start], layout, path)
    pdh_header = headers[0]
    if not pdh_header.lstrip().startswith("(PDH-CSV"):
        raise ParseError(
            path, "line 1, column 1", f"not an esxtop capture: starts {pdh_header[:40]!r}"
        )
    names = headers[1:]
    # A trailing delimiter on every line leaves one empty, nameless last column.
    trailing_empty = len(names) > 1 and names[-1] == ""
    counters = _counters(names[:-1] if trailing_empty else names, path)
    progress = _read_rows(data, layout, len(headers), trailing_empty, path)
    if not progress.sample_lines:
        raise ParseError(path, "line 2", "no sample rows after the header")

    parsed = Parsed()
    notes = parsed.notes
    if trailing_empty and progress.trailing_values:
        # Keep the column: some of its cells hold values though its header is empty.
        counters = _counters(names, path)
        notes.append(
            f"the last column has no header but {progress.trailing_values} values: "
            "kept as a nameless counter"
        )
    elif trailing_empty:
        _drop_last_counter(progress, len(names))
        notes.append("every line ends with a delimiter: dropped the empty last column")
    ncols = counters.num_rows
    times, time_facts = _sample_times(progress, pdh_header, layout, path)
    notes.extend(time_facts.notes)
    if progress.dropped_line is not None:
        notes.append(
            f"dropped truncated last row (line {progress.dropped_line}): the file ends inside it"
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

    hosts = sorted({h for h in counters.column("host").to_pylist() if h is not None})
    samples = pa.Table.from_batches(progress.batches, schema=SAMPLES_SCHEMA)
    sampled = [t.sampled_at for t in times]
    parsed.add(
        "esxtop_captures",
        [
            EsxtopCapture(
                pdh_header=pdh_header,
                dialect=layout.dialect,
                line_ending=layout.line_ending,
                host_count=len(hosts),
                hosts_json=hosts,
                sample_count=len(times),
                column_count=ncols,
                cell_count=samples.num_rows,
                empty_cells=progress.empty_cells,
                malformed_cells=len(progress.malformed),
                repaired_cells=progress.repaired_cells,
                dropped_rows=progress.dropped_rows,
                has_dates=time_facts.has_dates,
                timestamp_resolution_s=time_facts.resolution_s,
                utc_offset_min=time_facts.bias_min,
                interval_s=_interval_s(sampled),
                first_sampled_at=min(sampled),
                last_sampled_at=max(sampled),
            )
        ],
    )
    parsed.add("esxtop_counters", counters)
    parsed.add("esxtop_sample_times", times)
    parsed.add("esxtop_samples", samples)
    parsed.add("esxtop_malformed_cells", progress.malformed)
    return parsed


def _drop_last_counter(progress: _Progress, ncols: int) -> None:
    """Slice the (empty) last column's cells off: counter-major, they end each batch."""
    for k, batch in enumerate(progress.batches):
        nrows = batch.num_rows // ncols
        progress.batches[k] = batch.slice(0, batch.num_rows - nrows)
        progress.empty_cells -= nrows


def _layout(data: bytes, path: str) -> _Layout:
    """Line terminator, delimiter and quoting, read from the header line."""
    lf = data.find(b"\n")
    cr = data.find(b"\r")
    if lf < 0 and cr < 0:
        if not data.strip():
            raise ParseError(path, "line 1", "empty file")
        raise ParseError(path, "line 2", "no sample rows after the header (no line end)")
    if cr >= 0 and (lf < 0 or cr < lf):
        if data[cr + 1 : cr + 2] == b"\n":
            terminator, ending, end = b"\r\n", "crlf", cr
        else:
            terminator, ending, end = b"\r", "cr", cr
    else:
        terminator, ending, end = b"\n", "lf", lf
    header = data[:end]
    quoted = header.startswith(b'"')
    # The delimiter is the byte right after the first cell, `(PDH-CSV 4.0) (UTC)(0)`.
    first_end = header.find(b'"', 1) + 1 if quoted else _first_of(header, b",;")
    delimiter = header[first_end : first_end + 1]
    if delimiter not in (b",", b";"):
        raise ParseError(path, "line 1", "header has no ',' or ';' after its first cell")
    dialect = "semicolon" if delimiter == b";" else "quoted" if quoted else "excel"
    return _Layout(end + len(terminator), terminator, ending, delimiter, quoted, dialect)


def _first_of(text: bytes, chars: bytes) -> int:
    found = [i for i in (text.find(c.to_bytes(1, "big")) for c in chars) if i >= 0]
    return min(found) if found else len(text)


def _decode(raw: bytes) -> str:
    # esxtop writes UTF-8; Excel re-saves may be in the Windows code page.
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _header_cells(raw: bytes, layout: _Layout, path: str) -> list[str]:
    line = raw[: -len(layout.terminator)]
    if layout.quoted:
        line, _ = _insert_missing_delimiters(line, layout.delimiter)
    try:
        cells = next(csv.reader([_decode(line)], delimiter=layout.delimiter.decode(), strict=True))
    except csv.Error as exc:
        raise ParseError(path, "line 1", f"header is not CSV: {exc}") from None
    if len(cells) < 2:
        raise ParseError(path, "line 1", "header has no counter columns")
    return cells


def _counters(names: list[str], path: str) -> pa.Table:
    r"""Split `\\host\Group(instance)\Counter` natively, then fill the cells that are not."""
    headers = pa.array(names, pa.string())
    parts = pc.extract_regex(headers, _HEADER_NAME)
    matched = parts.is_valid()
    if not pc.any(matched).as_py():
        raise ParseError(path, "line 1", "no header cell of the form \\\\host\\Group\\Counter")
    # `Memory\Free MBytes` has no instance: extract_regex gives "" for the absent group.
    has_instance = pc.match_substring_regex(headers, _HAS_INSTANCE)
    columns = [
        parts.field("host"),
        parts.field("group"),
        pc.if_else(has_instance, parts.field("instance"), pa.scalar(None, pa.string())),
        parts.field("counter"),
    ]
    inferred = pc.invert(matched)
    if pc.any(inferred).as_py():
        columns = _inherit_names(names, matched, columns)
    host, group, instance, counter = columns
    ids = np.arange(len(names), dtype=np.int32)
    return pa.Table.from_arrays(
        [pa.array(ids), pa.array(ids + 1), host, group, instance, counter, headers, inferred],
        schema=COUNTERS_SCHEMA,
    )


def _inherit_names(names: list[str], matched: pa.Array, columns: list[pa.Array]) -> list[pa.Array]:
    r"""Give a cell that is not `\\host\...` the host, group and instance of the one before."""
    out = [column.to_pylist() for column in columns]
    for i, ok in enumerate(matched.to_pylist()):
        if ok:
            continue
        for column in out[:3]:
            column[i] = column[i - 1] if i else None
        out[3][i] = names[i].strip()
    return [pa.array(column, pa.string()) for column in out]


def _read_rows(
    data: bytes, layout: _Layout, nfields: int, trailing_empty: bool, path: str
) -> _Progress:
    """Check every data line, then parse its cells natively, one slice of lines at a time."""
    progress = _Progress()
    term = layout.terminator
    view = memoryview(data)
    pos = layout.body_start
    line_number = 1
    # Slices of a fixed number of lines (about _CHUNK_BYTES), so that most slices have the same
    # shape and share one counter_id array.
    first_line = data.find(term, pos) - pos + len(term)
    lines_per_chunk = max(1, _CHUNK_BYTES // max(first_line, 1))
    # Two stages overlap on two cores: while a worker thread parses one slice (pyarrow and
    # numpy release the GIL), this thread checks and translates the next one. One worker, so
    # slices are parsed in order and `progress` has one writer per field.
    with ThreadPoolExecutor(max_workers=1) as worker:
        parsing: Future[None] | None = None
        while pos < len(data):
            end = _after_lines(data, term, pos, lines_per_chunk)
            chunk = bytearray(view[pos:end])
            first_sample = len(progress.sample_lines)
            line_number = _check_lines(
                chunk,
                line_number,
                end == len(data),
                layout,
                nfields,
                trailing_empty,
                progress,
                path,
            )
            nrows = len(progress.sample_lines) - first_sample
            if nrows:
                body = chunk.translate(
                    _TO_LINES[layout.delimiter, layout.line_ending], _DROPPED[layout.line_ending]
                )
                del chunk
                if parsing is not None:
                    parsing.result()
                parsing = worker.submit(
                    _parse_cells, body, nfields, first_sample, nrows, progress, path
                )
            pos = end
        if parsing is not None:
            parsing.result()
    return progress


def _after_lines(data: bytes, term: bytes, pos: int, count: int) -> int:
    """The offset just after `count` more lines from `pos` (or the end of the data)."""
    for _ in range(count):
        stop = data.find(term, pos)
        if stop < 0:
            return len(data)
        pos = stop + len(term)
    return pos


def _check_lines(
    chunk: bytearray,
    line_number: int,
    at_eof: bool,
    layout: _Layout,
    nfields: int,
    trailing_empty: bool,
    progress: _Progress,
    path: str,
) -> int:
    """Check the lines of `chunk` and ready them for parsing, in place; the last line number.

    Each line's sample time is noted and overwritten with a `0` cell (same length, so nothing
    moves); the padded PCPU Power State cells get their delimiter; blank lines and a truncated
    last row are cut out. Only bytes.find/count run over the cells.
    """
    term, delim = layout.terminator, layout.delimiter
    start = 0
    while start < len(chunk):
        line_number += 1
        line_end = chunk.find(term, start)
        terminated = line_end >= 0
        if not terminated:
            line_end = len(chunk)
            chunk += b"\n"  # so an empty last cell is still a cell
        next_start = line_end + len(term)
        if line_end - start < 16 and not bytes(chunk[start:line_end]).strip():
            progress.blank_lines += 1
            del chunk[start:next_start]
            continue
        found = chunk.count(delim, start, line_end) + 1
        repaired = 0
        if found < nfields and layout.quoted:
            repaired = _repair_in_place(chunk, start, line_end, delim, nfields - found)
            found += repaired
        if found != nfields or (not terminated and _unbalanced(chunk, start, line_end, layout)):
            if not terminated and at_eof:
                progress.dropped_rows += 1
                progress.dropped_line = line_number
                del chunk[start:]
                break
            raise ParseError(
                path, f"line {line_number}", f"{found} fields where the header has {nfields}"
            )
        cut = chunk.find(delim, start, line_end)
        stamp = bytes(chunk[start:cut]).strip().strip(b'"').strip()
        if not stamp or cut == start:
            raise ParseError(path, f"line {line_number}, column 1", "empty sample time")
        progress.sample_lines.append(line_number)
        progress.stamps.append(_decode(stamp))
        progress.repaired_cells += repaired
        chunk[start:cut] = b" " * (cut - start - 1) + b"0"
        if trailing_empty:
            last = chunk.rfind(delim, start, line_end) + 1
            if bytes(chunk[last:line_end]).strip(b'" \r'):
                progress.trailing_values += 1
        start = next_start
    return line_number


def _repair_in_place(chunk: bytearray, start: int, end: int, delim: bytes, missing: int) -> int:
    """Give up to `missing` unquoted space-padded cells the delimiter esxtop forgot after them.

    `"0.00",    73.1"8.93"` becomes `"0.00",   73.1,"8.93"`: the cell gives up one pad space
    for the delimiter, so the line keeps its length. The PCPU Power State block ends the row,
    so a native search for `", ` backwards from the line end finds them after a short scan.
    """
    marker = b'"' + delim + b" "
    repaired = 0
    found = chunk.rfind(marker, start, end)
    while found >= 0 and repaired < missing:
        cell = found + 2
        quote = chunk.find(b'"', cell, end)
        if quote >= 0 and chunk.find(delim, cell, quote) < 0:
            chunk[cell:quote] = chunk[cell + 1 : quote] + delim
            repaired += 1
        found = chunk.rfind(marker, start, found)
    return repaired


def _unbalanced(chunk: bytearray, start: int, end: int, layout: _Layout) -> bool:
    """An odd number of quotes: the line ends inside a quoted cell."""
    return layout.quoted and chunk.count(b'"', start, end) % 2 == 1


def _insert_missing_delimiters(line: bytes, delim: bytes) -> tuple[bytes, int]:
    """Give each unquoted space-padded cell the delimiter esxtop forgot after it.

    `..."0.00",    73.1"8.93",...` becomes `..."0.00",    73.1,"8.93",...`. A search for
    `", ` (native, rare in a row) finds the few candidates, so long rows stay fast.
    """
    marker = b'"' + delim + b" "
    start = line.find(marker)
    if start < 0:
        return line, 0
    parts: list[bytes] = []
    done = 0
    repaired = 0
    while start >= 0:
        cell_start = start + 2
        quote = line.find(b'"', cell_start)
        if quote >= 0 and line.find(delim, cell_start, quote) < 0:
            parts += [line[done:quote], delim]
            done = quote
            repaired += 1
        start = line.find(marker, cell_start)
    parts.append(line[done:])
    return b"".join(parts), repaired


def _parse_cells(
    body: bytes | bytearray,
    width: int,
    first_sample: int,
    nrows: int,
    progress: _Progress,
    path: str,
) -> None:
    """Parse one cell per line of `body` (rows of `width` cells, the time cell first as `0`)."""
    try:
        values = _values(body, nrows * width)
    except pa.ArrowInvalid:  # a cell that is not even UTF-8 text (a corrupt file)
        line = progress.sample_lines[first_sample]
        raise ParseError(path, f"line {line}", "a cell is not UTF-8 text") from None
    if len(values if not isinstance(values, tuple) else values[0]) != nrows * width:
        raise ParseError(path, f"line {progress.sample_lines[first_sample]}", "cell count mismatch")
    if isinstance(values, tuple):
        values, bad = values
        line_numbers = progress.sample_lines
        for position, text in bad:
            row, col = divmod(position, width)
            index = first_sample + row
            cell = EsxtopMalformedCell(index, col - 1, line_numbers[index], text)
            progress.malformed.append(cell)
        progress.empty_cells += values.null_count - len(bad)
    else:
        progress.empty_cells += values.null_count
    if len(values) != nrows * width:
        raise ParseError(path, f"line {progress.sample_lines[first_sample]}", "cell count mismatch")
    progress.batches.append(_snake_batch(values, nrows, width, first_sample, progress.id_cache))


def _snake_batch(
    values: pa.Array,
    nrows: int,
    width: int,
    first_sample: int,
    cache: dict[int, tuple[np.ndarray, pa.Array]],
) -> pa.RecordBatch:
    """Row-major cells (time cell first), reordered counter by counter, snaking over the rows.

    Counter-major order puts each counter's values side by side (runs of equal values, narrow
    ranges: DuckDB's RLE and ALP store them in a quarter of the space of row order), and
    alternating the row direction (0..n-1, then n-1..0) makes sample_index step by +1/-1 only,
    which DuckDB bit-packs as 2-bit deltas.
    """
    ncols = width - 1
    snake, counter_ids = _id_patterns(nrows, ncols, cache)
    if values.null_count == 0:
        # Plain numpy: the value matrix without its time column, transposed block by block
        # (a block stays in cache; a whole-matrix transpose misses it on every cell), odd
        # counters reversed.
        matrix = values.to_numpy(zero_copy_only=True).reshape(nrows, width)[:, 1:]
        reordered = np.empty((ncols, nrows), dtype=np.float64)
        for c0 in range(0, ncols, _BLOCK):
            block = matrix[:, c0 : c0 + _BLOCK].T
            target = reordered[c0 : c0 + _BLOCK]
            target[0::2] = block[0::2]
            target[1::2] = block[1::2, ::-1]
        ordered = pa.array(reordered.ravel())
    else:
        # take() keeps the nulls that numpy would turn into NaN.
        positions = snake.astype(np.int64) * width + 1
        positions += counter_ids.to_numpy().astype(np.int64)
        ordered = values.take(pa.array(positions))
    sample_ids = pa.array(snake + first_sample)
    return pa.RecordBatch.from_arrays([sample_ids, counter_ids, ordered], schema=SAMPLES_SCHEMA)


def _id_patterns(
    nrows: int, ncols: int, cache: dict[int, tuple[np.ndarray, pa.Array]]
) -> tuple[np.ndarray, pa.Array]:
    """Local sample indexes (snaking) and counter ids of a slice of `nrows` rows, counter-major.

    Slices of the same shape share one counter_id array (Arrow arrays are immutable), which
    saves 4 bytes per cell of memory and the time to write them.
    """
    if nrows not in cache:
        local = np.arange(nrows, dtype=np.int32)
        snake = np.empty((ncols, nrows), dtype=np.int32)
        snake[0::2] = local
        snake[1::2] = local[::-1]
        counter_ids = np.repeat(np.arange(ncols, dtype=np.int32), nrows)
        cache.clear()  # one shape at a time: the last slice is usually the only other one
        cache[nrows] = (snake.ravel(), pa.array(counter_ids))
    return cache[nrows]


# Cells to lines in one translate pass: the delimiter becomes a newline, a locale copy's
# decimal comma a point, a CR-only line end a newline (a stray CR elsewhere is whitespace);
# quotes, and CRLF's CR, are deleted.
_TO_LINES = {
    (delim, ending): bytes.maketrans(
        delim + (b"," if delim == b";" else b"") + b"\r",
        b"\n" + (b"." if delim == b";" else b"") + (b"\n" if ending == "cr" else b" "),
    )
    for delim in (b",", b";")
    for ending in ("lf", "crlf", "cr")
}
_DROPPED = {"lf": b'"', "crlf": b'"\r', "cr": b'"'}

# One block per slice: one result array (no combine_chunks copy) and, measured on 2 cores,
# faster than splitting the slice over threads.
_READ = pacsv.ReadOptions(column_names=["value"], block_size=_CHUNK_BYTES + (16 << 20))
_SPLIT = pacsv.ParseOptions(quote_char=False, ignore_empty_lines=False)
_AS_FLOAT = pacsv.ConvertOptions(
    column_types={"value": pa.float64()}, null_values=[""], strings_can_be_null=True
)
_AS_TEXT = pacsv.ConvertOptions(
    column_types={"value": pa.string()}, null_values=[], strings_can_be_null=False
)


def _values(body: bytes, expected: int) -> pa.Array | tuple[pa.Array, list[tuple[int, str]]]:
    """One float per line of `body`; on a non-numeric cell, the floats plus the bad cells."""
    buffer = pa.py_buffer(body)
    try:
        column = pacsv.read_csv(buffer, _READ, _SPLIT, _AS_FLOAT).column(0)
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    except pa.ArrowInvalid:
        pass
    text = pacsv.read_csv(buffer, _READ, _SPLIT, _AS_TEXT).column(0).combine_chunks()
    trimmed = pc.utf8_trim_whitespace(text)
    numeric = pc.match_substring_regex(trimmed, _NUMBER, ignore_case=True)
    empty = pc.equal(trimmed, "")
    bad_mask = pc.invert(pc.or_(numeric, empty))
    positions = pc.indices_nonzero(bad_mask).to_pylist()
    bad_text = pc.take(text, pa.array(positions, pa.int64())).to_pylist() if positions else []
    values = pc.cast(pc.if_else(numeric, trimmed, pa.scalar(None, pa.string())), pa.float64())
    return values, list(zip(positions, bad_text, strict=True))


@dataclass(frozen=True, slots=True)
class _TimeFacts:
    has_dates: bool
    resolution_s: int
    bias_min: int
    notes: list[str]


# Candidate stamp layouts: (strptime format, resolution in seconds, carries a date).
# esxtop writes the first; the others come from Excel re-saves and locale copies. Month-first
# is tried before day-first, as perfmon writes it; day-first wins only when month-first fails.
_STAMP_FORMATS: tuple[tuple[str, int, bool], ...] = (
    ("%m/%d/%Y %H:%M:%S", 1, True),
    ("%m/%d/%Y %H:%M:%S.%f", 1, True),
    ("%m/%d/%Y %H:%M", 60, True),
    ("%m/%d/%Y %I:%M:%S %p", 1, True),
    ("%m/%d/%Y %I:%M %p", 60, True),
    ("%d/%m/%Y %H:%M:%S", 1, True),
    ("%d/%m/%Y %H:%M", 60, True),
    ("%d.%m.%Y %H:%M:%S", 1, True),
    ("%d.%m.%Y %H:%M", 60, True),
    ("%Y-%m-%d %H:%M:%S", 1, True),
    ("%Y-%m-%dT%H:%M:%S", 1, True),
    ("%H:%M:%S", 1, False),
    ("%H:%M:%S.%f", 1, False),
    ("%H:%M", 60, False),
)


def _sample_times(
    progress: _Progress, pdh_header: str, layout: _Layout, path: str
) -> tuple[list[EsxtopSampleTime], _TimeFacts]:
    notes: list[str] = []
    bias = _BIAS.search(pdh_header)
    if bias is None:
        notes.append(f"no time-zone bias in {pdh_header!r}: sample times taken as UTC")
    bias_min = int(bias.group(1)) if bias else 0
    local, fmt, resolution_s, has_dates = _parse_stamps(progress, path)
    if not has_dates:
        local = _on_epoch_days(local)
        notes.append(
            f"sample times are time-only ({progress.stamps[0]!r}): placed on 1970-01-01; "
            "the capture date is unknown"
        )
    if resolution_s > 1:
        notes.append(f"sample times have no seconds ({fmt!r}, e.g. an Excel re-save)")
    shift = dt.timedelta(minutes=bias_min)
    times = [
        EsxtopSampleTime(i, (t + shift).replace(tzinfo=dt.UTC), line, stamp)
        for i, (t, line, stamp) in enumerate(
            zip(local, progress.sample_lines, progress.stamps, strict=True)
        )
    ]
    return times, _TimeFacts(has_dates, resolution_s, bias_min, notes)


def _parse_stamps(progress: _Progress, path: str) -> tuple[list[dt.datetime], str, int, bool]:
    """Parse every stamp with the first layout that reads them all."""
    stamps = progress.stamps
    furthest = (-1, "")
    for fmt, resolution_s, has_dates in _STAMP_FORMATS:
        parsed: list[dt.datetime] = []
        for stamp in stamps:
            try:
                parsed.append(dt.datetime.strptime(stamp, fmt))
            except ValueError:
                break
        if len(parsed) == len(stamps):
            return parsed, fmt, resolution_s, has_dates
        if parsed and len(parsed) > furthest[0]:
            furthest = (len(parsed), fmt)
    bad = max(furthest[0], 0)
    reason = f"unreadable sample time {stamps[bad]!r}"
    if stamps[bad].startswith("(PDH-CSV"):
        reason = "a second header: concatenated captures are not supported, split the file"
    raise ParseError(path, f"line {progress.sample_lines[bad]}, column 1", reason)


def _on_epoch_days(times: list[dt.datetime]) -> list[dt.datetime]:
    """Time-only stamps on 1970-01-01, one day later each time the clock goes backwards."""
    day = 0
    out: list[dt.datetime] = []
    previous: dt.time | None = None
    for t in times:
        if previous is not None and t.time() < previous:
            day += 1
        previous = t.time()
        out.append(dt.datetime.combine(_EPOCH_DAY + dt.timedelta(days=day), t.time()))
    return out


def _interval_s(sampled: list[dt.datetime]) -> float | None:
    """Mean step, span / (n - 1): stable when stamps lost their seconds (Excel) or jitter."""
    if len(sampled) < 2 or sampled[-1] == sampled[0]:
        return None  # one sample, or all within one minute of an Excel re-save
    return round((sampled[-1] - sampled[0]).total_seconds() / (len(sampled) - 1), 3)
