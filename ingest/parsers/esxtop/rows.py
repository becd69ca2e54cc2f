"""The data lines: checked, readied in place and handed to the cell parser, a slice at a time."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from ingest.parsers.esxtop.layout import Layout, decode
from ingest.parsers.esxtop.records import Progress
from ingest.parsers.esxtop.repair import repair_in_place, unbalanced
from ingest.parsers.esxtop.values import CHUNK_BYTES, one_cell_per_line, parse_cells
from ingest.records import ParseError


def read_rows(
    data: bytes, layout: Layout, nfields: int, trailing_empty: bool, path: str
) -> Progress:
    """Check every data line, then parse its cells natively, one slice of lines at a time."""
    progress = Progress()
    term = layout.terminator
    view = memoryview(data)
    pos = layout.body_start
    line_number = 1
    # Slices of a fixed number of lines (about CHUNK_BYTES), so that most slices have the same
    # shape and share one counter_id array.
    first_line = data.find(term, pos) - pos + len(term)
    lines_per_chunk = max(1, CHUNK_BYTES // max(first_line, 1))
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
                body = one_cell_per_line(chunk, layout)
                del chunk
                if parsing is not None:
                    parsing.result()
                parsing = worker.submit(
                    parse_cells, body, nfields, first_sample, nrows, progress, path
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
        if found != nfields or (not terminated and unbalanced(chunk, start, line_end, layout)):
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
        progress.stamps.append(decode(stamp))
        progress.repaired_cells += repaired
        chunk[start:cut] = b" " * (cut - start - 1) + b"0"
        if trailing_empty:
            last = chunk.rfind(delim, start, line_end) + 1
            if bytes(chunk[last:line_end]).strip(b'" \r'):
                progress.trailing_values += 1
        start = next_start
    return line_number
