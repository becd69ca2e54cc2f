"""Cells to numbers, natively: one float64 column per slice, reordered counter by counter."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest.parsers.esxtop.layout import Layout
from ingest.parsers.esxtop.records import SAMPLES_SCHEMA, EsxtopMalformedCell
from ingest.records import ParseError

# Lines are processed in slices of about this many bytes, bounding the transient copies. At
# 8 MB a slice's copies stay in the CPU's caches: a 94 MB capture parses in about half the CPU
# time of 48 MB slices. The price is storage: each slice is counter-major in itself, so a
# counter's runs are a slice's rows long (rows.MIN_SLICE_ROWS at least), and DuckDB stores
# 0.29x the CSV instead of 0.21x.
CHUNK_BYTES = 8 << 20
_BLOCK = 1024  # counters per transpose block; even, so block starts keep the snake's parity
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$"


@dataclass(frozen=True, slots=True)
class Cells:
    """One slice's cells: counter-major rows, and what was empty or not a number."""

    batch: pa.RecordBatch
    malformed: list[EsxtopMalformedCell]
    empty_cells: int


def parse_cells(
    body: bytes | bytearray,
    width: int,
    first_sample: int,
    nrows: int,
    sample_lines: list[int],
    path: str,
) -> Cells:
    """Parse one cell per line of `body` (rows of `width` cells, the time cell first as `0`).

    Pure (it reads `sample_lines` only up to this slice), so slices can be parsed on
    several threads at once and their results added in file order.
    """
    line = sample_lines[first_sample]
    try:
        values = _values(body)
    except pa.ArrowInvalid:  # a cell that is not even UTF-8 text (a corrupt file)
        raise ParseError(path, f"line {line}", "a cell is not UTF-8 text") from None
    bad: list[tuple[int, str]] = []
    if isinstance(values, tuple):
        values, bad = values
    if len(values) != nrows * width:
        raise ParseError(path, f"line {line}", "cell count mismatch")
    malformed = []
    for position, text in bad:
        row, col = divmod(position, width)
        index = first_sample + row
        malformed.append(EsxtopMalformedCell(index, col - 1, sample_lines[index], text))
    batch = _snake_batch(values, nrows, width, first_sample)
    return Cells(batch, malformed, values.null_count - len(bad))


def _snake_batch(values: pa.Array, nrows: int, width: int, first_sample: int) -> pa.RecordBatch:
    """Row-major cells (time cell first), reordered counter by counter, snaking over the rows.

    Counter-major order puts each counter's values side by side (runs of equal values, narrow
    ranges: DuckDB's RLE and ALP store them in a quarter of the space of row order), and
    alternating the row direction (0..n-1, then n-1..0) makes sample_index step by +1/-1 only,
    which DuckDB bit-packs as 2-bit deltas.
    """
    ncols = width - 1
    snake, counter_ids = _id_patterns(nrows, ncols)
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


@functools.lru_cache(maxsize=2)
def _id_patterns(nrows: int, ncols: int) -> tuple[np.ndarray, pa.Array]:
    """Local sample indexes (snaking) and counter ids of a slice of `nrows` rows, counter-major.

    Slices of the same shape share one counter_id array (Arrow arrays are immutable), which
    saves 4 bytes per cell of memory and the time to write them. Two shapes are kept: the
    slices of a capture have one, its last slice usually another.
    """
    local = np.arange(nrows, dtype=np.int32)
    there_and_back = np.concatenate([local, local[::-1]])
    snake = np.tile(there_and_back, (ncols + 1) // 2)[: ncols * nrows]
    ids = np.arange(ncols, dtype=np.int32)[:, None]
    counter_ids = np.broadcast_to(ids, (ncols, nrows)).ravel()
    return snake, pa.array(counter_ids)


def forget_shapes() -> None:
    """Free the cached id patterns once a capture is read (tens of MB for a wide one)."""
    _id_patterns.cache_clear()


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


def _values(body: bytes | bytearray) -> pa.Array | tuple[pa.Array, list[tuple[int, str]]]:
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
