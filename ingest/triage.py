"""What to do with each file a PATH expands to: skip, reject, read labels, or parse and stage.

`ingest.walk.Walk` yields the members of the PATH arguments (folders, archives) one at a
time; `triage` decides per member: a run.yaml feeds the label resolver, a refused file or
archive member is rejected, anything else goes through `load_member`: screened by name and
first bytes, labelled, compared with what the warehouse already holds (by content hash),
parsed, and staged with the writer.
Nothing here raises for bad input: every file ends as an `Outcome`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from ingest.label_resolver import LabelResolver
from ingest.labels import LabelError, is_label_file
from ingest.outcomes import Outcome, Status
from ingest.parsers._common import normalize_text_encoding
from ingest.parsers.hcibench.case_folder import hcibench_case_of
from ingest.records import Parsed, ParseError, SourceFile
from ingest.redaction import redact_text
from ingest.registry import HEAD_BYTES, PARSERS, detect_format, unsupported_reason
from ingest.sources import source_for
from ingest.walk import Member, Refused, Walk
from ingest.writer import EarlierLoad, RawWriter

# Empty files with these endings are tool outputs that never got written
# (a crashed run); they are rejected, not skipped, so nobody misses them.
_OUTPUT_SUFFIXES = (".json", ".csv", ".out", ".txt")
# Documentation and scripts quote tool output (a README with a -res.txt block,
# a fixture generator) but are never tool output themselves: no tool writes
# these endings, so they are skipped before content detection can be fooled.
_NEVER_OUTPUT_SUFFIXES = (".md", ".markdown", ".rst", ".py", ".rb", ".sh", ".ps1", ".ipynb")


def collect(paths: Iterable[Path]) -> list[Member | Refused]:
    """Every candidate file, archive members included, in a stable order, all at once.

    For tools and tests that look at one small input; the load itself streams a `Walk`
    (this holds every member's bytes)."""
    return list(Walk(paths))


def triage(
    item: Member | Refused, writer: RawWriter, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """The outcome of one walked item (a parsed file is staged with `writer`)."""
    if isinstance(item, Refused):
        return Outcome.rejected(item.path, item.location, item.reason)
    if is_label_file(item.path):
        try:
            resolver.add_label_file(item)
        except LabelError as exc:
            return Outcome.rejected(item.path, exc.origin, exc.reason)
        return Outcome(item.path, Status.LABELS)
    return load_member(writer, item, resolver, known_paths)


def _screen(path: str, data: bytes) -> Outcome | str:
    """The format of a file worth parsing, else why it is skipped or rejected."""
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    if not data:
        if lower.endswith(_OUTPUT_SUFFIXES):
            return Outcome.rejected(path, "byte 0", "empty file: the tool wrote no output")
        return Outcome.skipped(path, "empty file")
    if lower.endswith(_NEVER_OUTPUT_SUFFIXES):
        return Outcome.skipped(path, "documentation or source code, not tool output")
    fmt = detect_format(data[:HEAD_BYTES], name)
    if fmt is None:
        return Outcome.skipped(path, unsupported_reason(data[:HEAD_BYTES], name))
    return fmt


def _parse(module: ModuleType, data: bytes, source: SourceFile) -> Parsed | Outcome:
    """The parser's result, or the rejection it amounts to."""
    fmt, path = module.FORMAT, source.path
    try:
        return module.parse(data, source)
    except ParseError as exc:
        return Outcome.rejected(path, exc.location, exc.reason, fmt)
    except RecursionError:
        return Outcome.rejected(path, "file", "structure nested too deeply", fmt)
    except Exception as exc:  # a parser bug must not abort the other files
        reason = (
            f"parser failed unexpectedly ({type(exc).__name__}: {exc}); please report this file"
        )
        return Outcome.rejected(path, "file", reason, fmt)


def _source_row(source: SourceFile, module: ModuleType, parsed: Parsed, labels: dict) -> dict:
    """The file's `raw.source_files` row (its id is drawn when written)."""
    return {
        "path": source.path,
        "name": source.name,
        "folder": source.folder,
        "sha256": source.sha256,
        "size_bytes": source.size_bytes,
        "format": module.FORMAT,
        "parser_version": module.PARSER_VERSION,
        "labels_json": json.dumps(labels, sort_keys=True),
        "result_per": labels["result_per"],
        "hcibench_case": source.hcibench_case,
        "row_count": parsed.row_count(),
        "notes_json": json.dumps(parsed.notes),
        "loaded_at": dt.datetime.now(dt.UTC),
    }


def _unchanged(
    path: str, fmt: str, same_content: list[EarlierLoad], labels_json: str, version: str
) -> Outcome | None:
    """Unchanged when these bytes are stored with the same labels by this parser version."""
    for earlier in same_content:
        if earlier.labels_json == labels_json and earlier.parser_version == version:
            reason = "" if earlier.path == path else f"same content as {earlier.path}"
            return Outcome(path, Status.UNCHANGED, fmt, reason=reason)
    return None


def load_member(
    writer: RawWriter, member: Member, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """Detect, parse and stage one file; never raises for bad input.

    Only `claim`, `find_same_content`, `find_by_path` and `release` of the writer are used
    for a file that is not staged, so a test can hand in a stand-in for files that never
    reach `stage`."""
    try:
        raw = member.read()
    except OSError as exc:
        return Outcome.rejected(member.path, "file", f"cannot be read: {exc}")
    # UTF-16 / BOM text becomes UTF-8 once, before detection; the hash stays the file's.
    data, encoding_note = normalize_text_encoding(raw)
    fmt = _screen(member.path, data)
    if isinstance(fmt, Outcome):
        return fmt
    try:
        labels = resolver.labels_for(member.path)
    except LabelError as exc:
        reason = f"bad labels: {exc.reason}"
        return Outcome.rejected(member.path, exc.origin, reason, fmt)
    case = hcibench_case_of(member.path, known_paths)
    labels.setdefault("result_per", "folder" if case else "file")
    source = source_for(member.path, raw, labels=labels, hcibench_case=case)

    # Team mode: no other loader checks or writes this path or these bytes until ours is
    # committed (a no-op in file mode, where one loader runs at a time); a file that is not
    # staged hands its keys back at once.
    writer.claim(member.path, source.sha256, source.hcibench_case)
    outcome = _check_and_stage(writer, member, fmt, data, encoding_note, labels, source)
    if outcome.status not in (Status.LOADED, Status.REPLACED):
        writer.release(member.path, source.sha256, source.hcibench_case)
    return outcome


def _check_and_stage(
    writer: RawWriter,
    member: Member,
    fmt: str,
    data: bytes,
    encoding_note: str | None,
    labels: dict[str, Any],
    source: SourceFile,
) -> Outcome:
    """The claimed file: already loaded (UNCHANGED), rejected by its parser, or parsed and
    staged (LOADED / REPLACED)."""
    module = PARSERS[fmt]
    labels_json = json.dumps(labels, sort_keys=True)
    # A loaded file is (bytes, labels, HCIBench case): the same bytes under other labels
    # are another result (a copy in two labelled folders), never replaced by this one.
    same_content = [
        earlier
        for earlier in writer.find_same_content(source.sha256, source.hcibench_case)
        if earlier.labels_json == labels_json
    ]
    unchanged = _unchanged(member.path, fmt, same_content, labels_json, module.PARSER_VERSION)
    if unchanged:
        return unchanged
    parsed = _parse(module, data, source)
    if isinstance(parsed, Outcome):
        return parsed
    if encoding_note:
        parsed.notes.insert(0, encoding_note)
    parsed.notes[:] = [redact_text(note) for note in parsed.notes]  # stored and printed

    # Replace the earlier version at this path, or the same bytes with the same
    # labels loaded by an older parser version.
    old_ids = {e.source_file_id for e in same_content} | set(writer.find_by_path(member.path))
    status = Status.REPLACED if old_ids else Status.LOADED
    outcome = Outcome(
        member.path,
        status,
        fmt,
        rows=parsed.row_count(),
        notes=list(parsed.notes),
        no_result=parsed.no_result_reason,
    )
    writer.stage(
        old_ids=old_ids,
        source_row=_source_row(source, module, parsed, labels),
        parsed=parsed,
        module=module,
        outcome=outcome,
    )
    return outcome
