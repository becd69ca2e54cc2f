"""How a capture is written (line end, delimiter, quoting), learnt from its header line."""

from __future__ import annotations

from dataclasses import dataclass

from ingest.records import ParseError

BOM = b"\xef\xbb\xbf"
PDH = b"(PDH-CSV"


@dataclass(frozen=True, slots=True)
class Layout:
    """How the file is written, learnt from its header line."""

    body_start: int  # byte offset of the first data line
    terminator: bytes
    line_ending: str
    delimiter: bytes
    quoted: bool
    dialect: str


def read_layout(data: bytes, path: str) -> Layout:
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
    return Layout(end + len(terminator), terminator, ending, delimiter, quoted, dialect)


def _first_of(text: bytes, chars: bytes) -> int:
    found = [i for i in (text.find(c.to_bytes(1, "big")) for c in chars) if i >= 0]
    return min(found) if found else len(text)


def decode(raw: bytes) -> str:
    # esxtop writes UTF-8; Excel re-saves may be in the Windows code page.
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")
