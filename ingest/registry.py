"""The parsers the ingest command knows, in detection order.

Every parser module exposes:

- `FORMAT: str`            name stored in `raw.source_files.format`
- `PARSER_VERSION: str`    bumped when the rows it produces change
- `TABLES: dict[str, type | pyarrow.Schema]`  raw table name -> row dataclass
  (or Arrow schema for parsers that build Arrow tables directly)
- `detect(head: bytes, name: str) -> bool`  True when the first bytes (up to
  `HEAD_BYTES`) look like this format; the name is a hint only
- `parse(data: bytes, source: SourceFile) -> Parsed`  pure; raises `ParseError`
- optional `check_stored(con, source_file_id, path)`  run by the writer in the transaction
  that stores the file; raises `ParseError` for what only the stored rows can tell

Detection runs in the order below, so a specific format (an HCIBench summary,
an esxtop capture) is tried before a general one (fio, whose text output can
start with almost anything). The loader hands detection UTF-8 bytes
(`_common.normalize_text_encoding` decodes UTF-16 and byte-order marks first);
a file no parser accepts is skipped with `unsupported_reason`, which says why
when it can (an encoding it cannot read, another Vdbench report page, a
header without rows).
"""

from __future__ import annotations

import re
from types import ModuleType

from ingest.parsers import (
    esxtop,
    fio,
    hcibench,
    published_figures,
    vdbench,
    vsan_capacity,
    vsan_observer,
    vsan_perfsvc,
)
from ingest.parsers._common import utf16_without_bom

HEAD_BYTES = 64 * 1024

_REQUIRED = ("FORMAT", "PARSER_VERSION", "TABLES", "detect", "parse")

_ORDERED: tuple[ModuleType, ...] = (
    published_figures,  # a header that names the seed's columns: nothing else writes it
    esxtop,
    hcibench,
    vdbench,
    vsan_observer,
    vsan_perfsvc,
    vsan_capacity,
    fio,
)


def _checked(module: ModuleType) -> ModuleType:
    missing = [name for name in _REQUIRED if not hasattr(module, name)]
    if missing:
        raise TypeError(f"parser {module.__name__} lacks {', '.join(missing)}")
    return module


PARSERS: dict[str, ModuleType] = {m.FORMAT: _checked(m) for m in _ORDERED}


def get_parser(fmt: str) -> ModuleType:
    try:
        return PARSERS[fmt]
    except KeyError:
        raise KeyError(f"no parser for format {fmt!r}; known: {', '.join(PARSERS)}") from None


# fio's JSON output, the bulk of an HCIBench run's files, opens with its version key. No other
# format's file opens so (every detector before fio's refuses such a head), so fio is asked at
# once: seven detectors skipped, 0.3 ms of every such file. The answer is the ordered one
# (tests/ingest/test_detection_order.py, over every sample and fixture).
_FIO_JSON_START = re.compile(rb'\s*\{\s*"fio version"\s*:')


def detect_format(head: bytes, name: str) -> str | None:
    """The first format whose `detect` accepts the file, or None."""
    if _FIO_JSON_START.match(head) and fio.detect(head, name):
        return fio.FORMAT
    return detect_in_order(head, name)


def detect_in_order(head: bytes, name: str) -> str | None:
    """The first format, in `PARSERS`' order, whose `detect` accepts the file, or None."""
    for fmt, module in PARSERS.items():
        if module.detect(head, name):
            return fmt
    return None


# Vdbench writes one HTML page per report kind; these carry no measurements this product reads
# (or repeat per host/SD/WD what summary.html and flatfile.html hold). 50407 names the page in
# its <title>; 50401 pages are told by their first line or their file name.
_VDBENCH_PAGE_TITLE = re.compile(rb"<title>Vdbench [^<]*?/(?P<page>[\w.-]+\.html)</title>")
_VDBENCH_FIRST_LINES = {
    b"Total response time histogram.": "histogram.html",
    b"* Contents of parameter file:": "parmfile.html",
}
_VDBENCH_OTHER_PAGES = re.compile(
    r"^(histogram|errorlog|parmfile|parmscan|status|skew|swat_mon|config|anchors|"
    r"(hd|host|sd|wd|fsd|fwd)\w*)\.html$",
    re.IGNORECASE,
)
_BOM_MARKS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
_DELIMITED_HEADER = re.compile(rb"^[^\r\n]*(?:[,;\t][^\r\n,;\t]+){2,}$")


def unsupported_reason(head: bytes, name: str) -> str:
    """Why a file no parser detects is skipped, as the load summary says it.

    `head` is the (encoding-normalised) first bytes the parsers saw. The reason names what
    the file is when that is recognisable (an undecodable encoding, another Vdbench report
    page, a header without data rows), so a user knows whether anything was lost.
    """
    page = _vdbench_page(head, name)
    if page:
        return f"a Vdbench {page} page: a report kind that carries no measurements this reads"
    encoding = _encoding_problem(head)
    if encoding:
        return f"not a supported format: {encoding}"
    if _header_only(head):
        return "not a supported format: a header line with no data rows"
    return "not a supported format"


def _vdbench_page(head: bytes, name: str) -> str | None:
    titled = _VDBENCH_PAGE_TITLE.search(head[:1024])
    if titled:
        return titled["page"].decode("ascii", errors="replace")
    body = re.sub(rb"<[^>]*>", b"", head[:1024]).strip()
    for first_line, page in _VDBENCH_FIRST_LINES.items():
        if body.startswith(first_line):
            return page
    if _VDBENCH_OTHER_PAGES.match(name) and b"<pre>" in head[:256].lower():
        return name
    return None


def _encoding_problem(head: bytes) -> str | None:
    """An encoding the loader cannot read: a byte-order mark whose text does not decode,
    UTF-16 without a mark, or bytes that are not UTF-8 (binary data or a legacy code page)."""
    if head.startswith(_BOM_MARKS):
        return "text with a UTF-16/32 byte-order mark that does not decode as that encoding"
    unmarked = utf16_without_bom(head)
    if unmarked:
        return f"{unmarked} text without a byte-order mark (save it as UTF-8 or with a BOM)"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the end of the head is not an error.
        if exc.start < len(head) - 3:
            return f"byte {exc.start} is not UTF-8 text (binary data or another encoding)"
    if b"\x00" in head:
        return "binary data (NUL bytes)"
    return None


def _header_only(head: bytes) -> bool:
    """A delimited header line (three or more fields) and nothing after it."""
    lines = [line for line in head.splitlines() if line.strip()]
    return len(lines) == 1 and bool(_DELIMITED_HEADER.match(lines[0].strip()))
