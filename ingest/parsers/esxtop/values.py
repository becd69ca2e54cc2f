"""Cells to numbers, natively: one float64 column per slice, reordered counter by counter."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest.parsers.esxtop.layout import Layout
from ingest.parsers.esxtop.records import SAMPLES_SCHEMA, EsxtopMalformedCell, Progress
from ingest.records import ParseError

# Lines are processed in slices of about this many bytes, bounding the transient copies.
CHUNK_BYTES = 48 << 20
_BLOCK = 1024  # counters per transpose block; even, so block starts keep the snake's parity
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$"


def parse_cells(
    body: bytes | bytearray,
    width: int,
    first_sample: int,
    nrows: int,
    progress: Progress,
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


def one_cell_per_line(chunk: bytearray, layout: Layout) -> bytes:
    """The checked lines of a slice with every cell on a line of its own (see `_TO_LINES`)."""
    return chunk.translate(
        _TO_LINES[layout.delimiter, layout.line_ending], _DROPPED[layout.line_ending]
    )


# One block per slice: one result array (no combine_chunks copy) and, measured on 2 cores,
# faster than splitting the slice over threads.
_READ = pacsv.ReadOptions(column_names=["value"], block_size=CHUNK_BYTES + (16 << 20))
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
