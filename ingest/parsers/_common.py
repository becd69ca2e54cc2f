"""Rules several parsers share, each written once.

fio job options reach the warehouse through two doors (fio's own JSON/normal output and
HCIBench's `fio.cfg`), and more than one parser reads sizes, printed decimals and bad values. A
rule written twice drifts (the two copies of the `rw` rule disagreed on trim modes and
`rwmixwrite`), so each lives here as a small pure function.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import gc
import json
import math
import posixpath
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from ingest.records import ParseError, SourceFile

# ------------------------------------------------------------------------------ documents

# Documents about outputs: a README, notes, PROVENANCE.md. They quote any tool's lines (in code
# blocks and tables) but are none of the formats, so every parser's `detect` refuses them first.
_DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdown", ".rst", ".adoc", ".asciidoc")
# A Markdown code fence, or a table's delimiter row (`|---|:---:|`): no tool writes either.
_MARKDOWN_MARKS = re.compile(
    rb"^ {0,3}(?:```|~~~)|^ {0,3}\|? *:?-{3,}:? *\|(?: *:?-{3,}:? *\|?)*\s*$", re.MULTILINE
)


# What a fence or a delimiter row must contain: without any of these, no regex pass is needed.
_MARKDOWN_NEEDS = (b"```", b"~~~", b"---")


@functools.lru_cache(maxsize=4)
def is_document(head: bytes, name: str) -> bool:
    """Whether a file is a document about outputs (Markdown, reStructuredText, AsciiDoc by
    name; a Markdown code fence or table delimiter row in any file), not an output itself.

    Every parser's `detect` asks it of the same head, so the answer is kept for the last few
    heads (a bytes object keeps its hash); the multi-line regex over a 64 KiB head (2.6 ms)
    runs only when the head holds a fence's or a delimiter row's characters at all."""
    if name.lower().endswith(_DOCUMENT_SUFFIXES):
        return True
    # One byte first: memchr skips a 64 KiB head in a few microseconds, where a three-byte
    # search takes 35-70 us, and most outputs hold no backtick or tilde at all.
    if not any(mark[:1] in head and mark in head for mark in _MARKDOWN_NEEDS):
        return False
    return bool(_MARKDOWN_MARKS.search(head))


# -------------------------------------------------------------------------------- memory


@contextlib.contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a parser builds a file's many values.

    A decoded document is maps and lists, none in a cycle (reference counting frees them), but
    the collector visits every new container every ~700 allocations and the survivors again in
    each older generation: a quarter to a third of decoding a 720-dump fio file. Left as it
    was found (a caller that paused it keeps it paused)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# --------------------------------------------------------------------------------- sizes

_SIZE = re.compile(r"(?P<number>0x[0-9a-f]+|\d+(?:\.\d+)?)\s*(?P<suffix>[a-z]*)")
_SIZE_SUFFIX = re.compile(r"(?:(?P<prefix>[kmgtp])(?P<iec>i)?)?b?")
_PREFIX_POWER = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
# fio cuts an option value at these: `bs=4k,64k` (read,write), `bsrange=1k-4k`, `4k:8k`.
_SIZE_SEPARATORS = re.compile(r"[,:/-]")


def parse_size_bytes(value: object, kb_base: int = 1024) -> int | None:
    """A size the way fio reads an option value, in bytes; None when it is not a size.

    fio's grammar (HOWTO "Parameter types", parse.c `__get_mult_bytes`): a decimal or `0x`
    hex number, then an optional case-insensitive prefix k/m/g/t/p and an optional `b`/`B`
    (bytes, not bits). With `kb_base=1024`, fio's default, `k` means 1024 and the IEC-looking
    `Ki`/`KiB` mean 1000 ("opposite" units, kept for old job files); with `kb_base=1000` the
    prefixes mean what the standards say. A bare number is bytes: HCIBench's `blocksize=4` is
    4 bytes to fio. Only the first of several values is read (`4k,64k` -> 4096). Percentages
    (`size=100%`) are not sizes.
    """
    if value is None or isinstance(value, bool):
        return None
    text = _SIZE_SEPARATORS.split(str(value).strip().lower(), maxsplit=1)[0]
    match = _SIZE.fullmatch(text)
    suffix = _SIZE_SUFFIX.fullmatch(match["suffix"]) if match else None
    if suffix is None:
        return None
    number = int(match["number"], 16) if match["number"].startswith("0x") else match["number"]
    if not suffix["prefix"]:
        return int(float(number))
    base = kb_base if not suffix["iec"] else (1000 if kb_base == 1024 else 1024)
    return int(float(number) * base ** _PREFIX_POWER[suffix["prefix"]])


# ------------------------------------------------------------------ fio read/write mix

# fio's `rw`/`readwrite` values (HOWTO "I/O type") -> (share of reads, random?) before the
# mix options. Trims are neither reads nor writes, but they are not reads: read % is 0.
# None for the share marks the mixed modes, whose split `rwmixread`/`rwmixwrite` decide.
_FIO_RW: dict[str, tuple[int | None, bool]] = {
    "read": (100, False),
    "write": (0, False),
    "trim": (0, False),
    "randread": (100, True),
    "randwrite": (0, True),
    "randtrim": (0, True),
    "rw": (None, False),
    "readwrite": (None, False),
    "randrw": (None, True),
    "trimwrite": (0, False),
    "randtrimwrite": (0, True),
}
FIO_DEFAULT_RWMIXREAD = 50


def fio_rw_mode(rw: str | None) -> str:
    """The I/O pattern of an `rw` value without fio's `:<nr>` offset modifier (`randread:8`);
    fio's default `read` when the option is absent."""
    return str(rw).split(":")[0].strip() if rw else "read"


def fio_read_random_pct(
    rw: str | None,
    rwmixread: float | None = None,
    rwmixwrite: float | None = None,
    percentage_random: float | None = None,
    *,
    rwmixwrite_given_last: bool = False,
) -> tuple[float | None, float | None]:
    """(read %, random %) of a fio job from its `rw` and mix options; (None, None) for an
    `rw` fio does not know.

    Mixed modes (`rw`, `readwrite`, `randrw`) read `rwmixread` % (default 50); a lone
    `rwmixwrite` means 100 - it. fio lets the option given last win when both are set and do
    not add up to 100 (`rwmixwrite_given_last`). `percentage_random` only applies to random
    modes (fio's default 100; 0 makes a random job sequential). The mix options of a pure mode
    (`randread` with `rwmixread=70`) are ignored, as fio ignores them.
    """
    share, is_random = _FIO_RW.get(fio_rw_mode(rw), (-1, False))
    if share == -1:
        return None, None
    if share is None:
        share = _mixed_read_pct(rwmixread, rwmixwrite, rwmixwrite_given_last)
    if not is_random:
        return share, 0
    return share, 100 if percentage_random is None else percentage_random


def _mixed_read_pct(
    rwmixread: float | None, rwmixwrite: float | None, rwmixwrite_given_last: bool
) -> float:
    if rwmixwrite is not None and (rwmixread is None or rwmixwrite_given_last):
        return 100 - rwmixwrite
    return FIO_DEFAULT_RWMIXREAD if rwmixread is None else rwmixread


# ---------------------------------------------------------------------- printed numbers


def printed_decimals(printed: str) -> int:
    """How many digits a number was printed with after the point: '8.210' -> 3, '8' -> 0."""
    try:
        exponent = Decimal(printed.strip()).as_tuple().exponent
    except InvalidOperation:
        raise ValueError(f"not a number: {printed!r}") from None
    return max(0, -int(exponent))


def half_unit_of_last_digit(printed: str) -> float:
    """How far a printed number may be from the value it rounds: half a unit of its last
    printed digit. '8.21' -> 0.005, '8.210' -> 0.0005, '8' and '100' -> 0.5."""
    return float(Decimal(5).scaleb(-printed_decimals(printed) - 1))


# ---------------------------------------------------------------------- errors, context


def line_error(source: SourceFile, line_no: int, reason: str) -> ParseError:
    """A ParseError pointing at one line of `source`."""
    return ParseError(source.path, f"line {line_no}", reason)


def bad_value_line(text: str, exc: Exception) -> str:
    """`line N` of the first line holding the value a conversion choked on.

    Python quotes the offending text in the message (`could not convert string to float:
    '5x0'`); the first place it occurs in the file is where the user should look."""
    quoted = re.search(r"'([^']{1,200})'", str(exc))
    at = text.find(quoted.group(1)) if quoted else -1
    return f"line {text.count(chr(10), 0, at) + 1}" if at >= 0 else "line 1"


def hcibench_case_name(source: SourceFile) -> str | None:
    """The HCIBench test-case folder name the file belongs to (the loader found it from the
    path), or None outside HCIBench results."""
    return posixpath.basename(source.hcibench_case) if source.hcibench_case else None


# ------------------------------------------------------------- text, JSON and XML documents


def decode_utf8(data: bytes, source: SourceFile) -> str:
    """UTF-8 text, with or without a byte-order mark; a ParseError at the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(source.path, f"byte {exc.start}", "not UTF-8 text") from None


def load_json(data: str | bytes, source: SourceFile) -> Any:
    """A JSON document; a ParseError at the line and column where it stops being JSON."""
    try:
        return json.loads(
            data,
            parse_constant=reject_json_constant,
            parse_int=bounded_json_int,
            parse_float=finite_json_float,
        )
    except UnicodeDecodeError as exc:  # bytes that are not UTF-8 (or -16/-32) text
        raise ParseError(source.path, f"byte {exc.start}", "not UTF-8 text") from None
    except UnsoundJsonNumber as exc:
        text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
        raise ParseError(source.path, unsound_json_location(text), str(exc)) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise ParseError(source.path, where, f"invalid JSON: {exc.msg}") from None


def load_xml(text: str, source: SourceFile, first_line: int = 1) -> ET.Element:
    """An XML document that starts on line `first_line` of the file; a ParseError at the line
    and column where it stops being XML."""
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        line, column = exc.position
        where = f"line {first_line + line - 1}, column {column + 1}"
        raise ParseError(source.path, where, f"invalid XML: {exc}") from None


def xml_name(tag: str) -> str:
    """An element's name without its namespace: `{urn:vim25}label` -> `label`."""
    return tag.rsplit("}", 1)[-1]


# ------------------------------------------------------------------------ text encodings

# Byte-order marks, longest first: a UTF-32LE mark starts with the UTF-16LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 with a byte-order mark"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16BE"),
)


def normalize_text_encoding(data: bytes) -> tuple[bytes, str | None]:
    """The file as UTF-8 bytes without a byte-order mark, and a note when it was not so.

    PowerShell's `>` writes UTF-16LE with a mark (Get-VsanStat CSV, a report copied through a
    Windows console), Excel and Notepad write UTF-8 with one; every parser reads UTF-8, so the
    loader converts once, before detection. Only a mark says the encoding: bytes without one are
    returned unchanged (a UTF-16 file without a mark is reported by `unsupported_reason`). A
    marked file that does not decode is returned unchanged with a note saying where it breaks.
    """
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                text = body.decode(codec)
            except UnicodeDecodeError as exc:
                at = exc.start + len(bom)
                return data, f"starts with a {label} byte-order mark but byte {at} is not {label}"
            return text.encode("utf-8"), f"decoded from {label}"
    return data, None


def utf16_without_bom(head: bytes) -> str | None:
    """`UTF-16LE`/`UTF-16BE` when unmarked text has a NUL beside most ASCII bytes, else None."""
    sample = head[:4096]
    if len(sample) < 16:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.8 * len(odd) and even.count(0) < 0.1 * len(even):
        return "UTF-16LE"
    if even.count(0) > 0.8 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "UTF-16BE"
    return None


def unterminated_last_line(text: str) -> int | None:
    """The number of the last non-blank line when nothing ends it, else None.

    A tool ends every line it writes: a last line without its terminator was cut (the run was
    killed, the copy was taken while the tool was writing), so any value on it may be a prefix
    of the real one (`4` of `47.82`) and is never stored."""
    if text.rstrip(" \t").endswith(("\n", "\r")) or not text.strip():
        return None
    return len(text.rstrip().splitlines())


# ------------------------------------------------------------- numbers no tool measures

INT64_MAX = 2**63 - 1
# JSON's grammar has no NaN/Infinity, but Python's json module accepts them by default; a
# tool's counter past 2^63 is an unsigned wrap that no BIGINT holds. Neither is a measurement.
_UNSOUND_JSON_TOKEN = re.compile(r"-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


class UnsoundJsonNumber(ValueError):
    """A JSON number that is no measurement: NaN, Infinity or an integer past 2^63."""


def reject_json_constant(name: str) -> float:
    """`parse_constant` hook: NaN/Infinity/-Infinity are not JSON numbers."""
    raise UnsoundJsonNumber(f"{name} is not a number (JSON has no NaN or Infinity)")


def bounded_json_int(digits: str) -> int:
    """`parse_int` hook: an integer past 2^63 is an overflowed counter, not a value."""
    value = int(digits)
    if abs(value) > INT64_MAX:
        raise UnsoundJsonNumber(f"{digits} is past 2^63 (an overflowed counter)")
    return value


def finite_json_float(digits: str) -> float:
    """`parse_float` hook: `1e999` reads as Infinity, which no tool measured."""
    value = float(digits)
    if not math.isfinite(value):
        raise UnsoundJsonNumber(f"{digits} overflows a double (Infinity)")
    return value


def unsound_json_location(text: str, start: int = 0) -> str:
    """`line L, column C` of the first NaN/Infinity/huge integer outside a string, from
    `start`; the hooks above cannot say where they were called."""
    in_string = escaped = False
    for pos in range(start, len(text)):
        char = text[pos]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif pos and text[pos - 1].isdigit():
            continue  # inside a number already passed
        elif (found := _UNSOUND_JSON_TOKEN.match(text, pos)) and _unsound_token(found[0]):
            return line_column(text, pos)
    return "line 1"


def _unsound_token(token: str) -> bool:
    """Whether a JSON literal is one the hooks above refuse."""
    if token.lstrip("-")[0] in "IN":
        return True
    if any(c in token for c in ".eE"):
        return not math.isfinite(float(token))
    return abs(int(token)) > INT64_MAX


def line_column(text: str, pos: int) -> str:
    """`line L, column C` of character offset `pos`."""
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"
