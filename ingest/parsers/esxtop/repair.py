"""esxtop's own CSV slips, fixed in place: the comma it forgets after padded PCPU cells."""

from __future__ import annotations

from ingest.parsers.esxtop.layout import Layout


def repair_in_place(chunk: bytearray, start: int, end: int, delim: bytes, missing: int) -> int:
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


def unbalanced(chunk: bytearray, start: int, end: int, layout: Layout) -> bool:
    """An odd number of quotes: the line ends inside a quoted cell."""
    return layout.quoted and chunk.count(b'"', start, end) % 2 == 1


def insert_missing_delimiters(line: bytes, delim: bytes) -> tuple[bytes, int]:
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
