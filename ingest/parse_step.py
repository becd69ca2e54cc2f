"""One file's parse step: its bytes in, the Arrow tables the writer stores (or the file's
rejection) out.

The step is a pure function of a `ParseJob`: the bytes (already UTF-8), the file's
`SourceFile`, the note the encoding left and the format, when the loader detected it already
(else the step detects it: a file no parser reads is skipped). It runs the parser and turns
its rows into Arrow (`tables.to_arrow`, which redacts secrets as it builds), so it can run
in the loading process or in a worker process of `ingest.parse_pool` with the same answer:
the worker's result is sent back as Arrow, which pickles compactly. It never raises for a
file: whatever goes wrong is that file's `Outcome` (REJECTED), worded as the loader words it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import pyarrow as pa

from ingest import tables
from ingest.outcomes import Outcome
from ingest.records import Parsed, ParseError, SourceFile
from ingest.redaction import redact_table, redact_text
from ingest.registry import HEAD_BYTES, PARSERS, detect_format, unsupported_reason


@dataclass(frozen=True, slots=True)
class ParseJob:
    """What the parse of one file needs, and nothing of the warehouse."""

    fmt: str | None  # None: detected by the step
    data: bytes  # the file's bytes, UTF-16 / BOM text already turned into UTF-8
    source: SourceFile
    encoding_note: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """A parsed file ready to stage: its format, its non-empty tables as Arrow, its notes
    (redacted)."""

    fmt: str
    tables: dict[str, pa.Table]
    notes: list[str]
    no_result_reason: str | None
    row_count: int


def unexpected_failure(path: str, exc: BaseException) -> Outcome:
    """The rejection of a file whose load failed with an exception no rule expected (an
    integer past 2^63 that Arrow cannot hold, a name that cannot be encoded)."""
    return Outcome.rejected(path, "file", f"could not be loaded ({type(exc).__name__}: {exc})")


def detect_or_skip(path: str, data: bytes) -> str | Outcome:
    """The format of the file, else why it is skipped (no parser reads it)."""
    name = path.rsplit("/", 1)[-1]
    fmt = detect_format(data[:HEAD_BYTES], name)
    if fmt is None:
        return Outcome.skipped(path, unsupported_reason(data[:HEAD_BYTES], name))
    return fmt


def run_job(job: ParseJob) -> ParsedFile | Outcome:
    """The parsed file, or the skip or rejection it amounts to; never raises."""
    try:
        fmt = job.fmt or detect_or_skip(job.source.path, job.data)
        if isinstance(fmt, Outcome):
            return fmt
        module = PARSERS[fmt]
        parsed = parse_with(module, job.data, job.source)
        if isinstance(parsed, Outcome):
            return parsed
        notes = [job.encoding_note, *parsed.notes] if job.encoding_note else parsed.notes
        return ParsedFile(
            fmt=fmt,
            tables=arrow_tables(parsed, module),
            notes=[redact_text(note) for note in notes],  # stored and printed
            no_result_reason=parsed.no_result_reason,
            row_count=parsed.row_count(),
        )
    except Exception as exc:
        return unexpected_failure(job.source.path, exc)


def parse_with(module: ModuleType, data: bytes, source: SourceFile) -> Parsed | Outcome:
    """The parser's result, or the rejection it amounts to."""
    fmt, path = module.FORMAT, source.path
    try:
        return module.parse(data, source)
    except ParseError as exc:
        return Outcome.rejected(path, exc.location, exc.reason, fmt)
    except RecursionError:
        return Outcome.rejected(path, "file", "structure nested too deeply", fmt)
    except Exception as exc:  # a parser bug must not abort the other files
        return parser_failure(path, fmt, exc)


def parser_failure(path: str, fmt: str | None, exc: BaseException) -> Outcome:
    """The rejection of a file its parser failed on unexpectedly (a bug, or its process
    ended while it parsed)."""
    reason = f"parser failed unexpectedly ({type(exc).__name__}: {exc}); please report this file"
    return Outcome.rejected(path, "file", reason, fmt)


def arrow_tables(parsed: Parsed, module: ModuleType) -> dict[str, pa.Table]:
    """The parser's non-empty tables as Arrow; a table it did not declare is a parser bug."""
    arrays: dict[str, pa.Table] = {}
    for name, rows in parsed.tables.items():
        if name not in module.TABLES:
            raise TypeError(f"parser {module.FORMAT} wrote undeclared table {name}")
        # Secrets leave every text here (`to_arrow` redacts as it builds).
        built = isinstance(rows, pa.Table)
        arrow = redact_table(rows) if built else tables.to_arrow(module.TABLES[name], rows)
        if arrow.num_rows:
            arrays[name] = arrow
    return arrays
