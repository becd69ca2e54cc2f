"""The data lines: checked, readied in place and handed to the cell parser, a slice at a time."""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

from ingest.parsers.esxtop.layout import Layout, decode
from ingest.parsers.esxtop.records import Progress
from ingest.parsers.esxtop.repair import repair_in_place, unbalanced
from ingest.parsers.esxtop.values import (
    CHUNK_BYTES,
    Cells,
    forget_shapes,
    one_cell_per_line,
    parse_cells,
)
from ingest.records import ParseError

# Slices parsed at once: one per core of the 2-core machines the loader runs on.
PARSERS = 2
# A slice is stored counter-major in itself, so its rows are the length of a counter's runs:
# 12-row slices (8 MB of a 100,000-column capture) stored 0.36x the CSV, 64 rows 0.25-0.29x.
MIN_SLICE_ROWS = 64


def read_rows(
    data: bytes, layout: Layout, nfields: int, trailing_empty: bool, path: str
) -> Progress:
    """Check every data line, then parse its cells natively, one slice of lines at a time."""
    progress = Progress()
    term = layout.terminator
    view = memoryview(data)
    pos = layout.body_start
    line_number = 1
    # Slices of a fixed number of lines (about CHUNK_BYTES, at least MIN_SLICE_ROWS), so that
    # most slices have the same shape and share one counter_id array.
    first_line = data.find(term, pos) - pos + len(term)
    lines_per_chunk = max(MIN_SLICE_ROWS, CHUNK_BYTES // max(first_line, 1))
    # This thread checks and translates slices while PARSERS worker threads parse earlier
    # ones (pyarrow and numpy release the GIL), so both cores stay busy. At most PARSERS
    # slices are in flight, which bounds the memory, and their results are added in order.
    parsing: deque[Future[Cells]] = deque()
    with ThreadPoolExecutor(max_workers=PARSERS) as workers:
        try:
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
                    body = one_cell_per_line(chunk, layout)
                    del chunk
                    if len(parsing) == PARSERS:
                        _add(progress, parsing.popleft().result())
                    parsing.append(
                        workers.submit(
                            parse_cells, body, nfields, first_sample, nrows,
                            progress.sample_lines, path,
                        )
                    )  # fmt: skip
                pos = end
            while parsing:
                _add(progress, parsing.popleft().result())
        finally:
            for pending in parsing:
                pending.cancel()
            forget_shapes()
    return progress


def _add(progress: Progress, cells: Cells) -> None:
    progress.batches.append(cells.batch)
    progress.malformed.extend(cells.malformed)
    progress.empty_cells += cells.empty_cells


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
    layout: Layout,
    nfields: int,
    trailing_empty: bool,
    progress: Progress,
    path: str,
) -> int:
    """Check the lines of `chunk` and ready them for parsing, in place; the last line number.

    Each line's sample time is noted and overwritten with a `0` cell (same length, so nothing
    moves); the padded PCPU Power State cells get their delimiter; blank lines and a truncated
    last row are cut out. Only bytes.find/count run over the cells.
    """
    term, delim = layout.terminator, layout.delimiter
    whole_end = delim if trailing_empty else b'"'
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
            repaired = repair_in_place(chunk, start, line_end, delim, nfields - found)
            found += repaired
        broken = _broken(chunk, (start, line_end), terminated, (found, nfields), whole_end, layout)
        if broken:
            if at_eof and not bytes(chunk[next_start:]).strip():
                _note_cut_last_row(progress, line_number, broken)
                del chunk[start:]
                break
            raise ParseError(
                path, f"line {line_number}", f"{broken}; only a cut last row can be dropped"
            )
        cut = chunk.find(delim, start, line_end)
        stamp = bytes(chunk[start:cut]).strip().strip(b'"').strip()
        if not stamp or cut == start:
            raise ParseError(path, f"line {line_number}, column 1", "empty sample time")
        progress.sample_lines.append(line_number)
        progress.stamps.append(decode(stamp))
        progress.repaired_cells += repaired
        chunk[start:cut] = b" " * (cut - start - 1) + b"0"
        if trailing_empty:
            last = chunk.rfind(delim, start, line_end) + 1
            if bytes(chunk[last:line_end]).strip(b'" \r'):
                progress.trailing_values += 1
        start = next_start
    return line_number


def _broken(
    chunk: bytearray,
    span: tuple[int, int],
    terminated: bool,
    counts: tuple[int, int],
    whole_end: bytes,
    layout: Layout,
) -> str | None:
    """Why the line is not a whole row, or None when it is.

    A line without its line end (the file's last) is whole only when its end shows it: a
    closing quote, or the delimiter every line of the file ends with. `...,"73.9`, `..., 73`
    or `...,0,` may end in a cell cut short: keeping it would store 7 (or NULL) where esxtop
    wrote 73.9 (or 0).
    """
    start, end = span
    found, nfields = counts
    if found != nfields:
        return f"{found} fields where the header has {nfields}"
    if terminated:
        return None
    if unbalanced(chunk, start, end, layout):
        return "the file ends inside a quoted cell"
    last = end - 1
    if layout.line_ending == "crlf" and chunk[last : last + 1] == b"\r":
        last -= 1  # cut between the CR and the LF: the row itself is whole
    if last < start or chunk[last : last + 1] != whole_end:
        return "the file ends without a line end, after a cell that may be cut"
    return None


def _note_cut_last_row(progress: Progress, line_number: int, why: str) -> None:
    """esxtop killed mid-write (HCIBench or a script stopping it) leaves a cut last row."""
    progress.dropped_rows += 1
    progress.dropped_line = line_number
    progress.dropped_reason = why
