"""What to do with each file a PATH expands to: skip, reject, read labels, or parse and stage.

`ingest.walk.Walk` yields the members of the PATH arguments (folders, archives) one at a
time; `triage` decides per member, in walk order: a run.yaml feeds the label resolver, a
refused file or archive member is rejected, anything else is read, screened by name and first
bytes and labelled (`prepare_member`). A `Prepared` file is then compared with what the
warehouse already holds (by content hash), parsed (`ingest.parse_step`, perhaps ahead in a
worker process) and staged with the writer (`stage_prepared`, in walk order).
Nothing here raises for bad input: every file ends as an `Outcome`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from ingest.label_resolver import LabelResolver
from ingest.labels import LabelError, is_label_file
from ingest.outcomes import Outcome, Status
from ingest.parse_step import ParsedFile, ParseJob, detect_or_skip, run_job
from ingest.parsers._common import normalize_text_encoding
from ingest.parsers.hcibench.case_folder import hcibench_case_of
from ingest.records import SourceFile
from ingest.registry import PARSERS
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


@dataclass(frozen=True, slots=True)
class Prepared:
    """A file read, screened and labelled: what is left is its check against the warehouse
    (`stage_prepared`) and its parse (`job`, which may run in another process)."""

    job: ParseJob
    labels: dict[str, Any]
    labels_json: str

    @property
    def source(self) -> SourceFile:
        return self.job.source

    @property
    def held_bytes(self) -> int:
        """Bytes this file holds until it is staged (the load's window bounds their sum)."""
        return len(self.job.data)


def triage(
    item: Member | Refused, resolver: LabelResolver, known_paths: set[str]
) -> Outcome | Prepared:
    """The first step of one walked item, taken in walk order: its outcome when that is
    known without the warehouse (refused, labels, skipped, rejected), else the file
    `Prepared` for its check and parse."""
    if isinstance(item, Refused):
        return Outcome.rejected(item.path, item.location, item.reason)
    if is_label_file(item.path):
        try:
            resolver.add_label_file(item)
        except LabelError as exc:
            return Outcome.rejected(item.path, exc.origin, exc.reason)
        return Outcome(item.path, Status.LABELS)
    return prepare_member(item, resolver, known_paths)


def _screen_name(path: str, data: bytes) -> Outcome | None:
    """Why a file is skipped or rejected before its content is looked at, if it is."""
    lower = path.rsplit("/", 1)[-1].lower()
    if not data:
        if lower.endswith(_OUTPUT_SUFFIXES):
            return Outcome.rejected(path, "byte 0", "empty file: the tool wrote no output")
        return Outcome.skipped(path, "empty file")
    if lower.endswith(_NEVER_OUTPUT_SUFFIXES):
        return Outcome.skipped(path, "documentation or source code, not tool output")
    return None


def _source_row(source: SourceFile, module: ModuleType, parsed: ParsedFile, labels: dict) -> dict:
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
        "row_count": parsed.row_count,
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


def prepare_member(
    member: Member, resolver: LabelResolver, known_paths: set[str]
) -> Prepared | Outcome:
    """Read, screen by name and label one file; never raises for bad input.

    Its format is detected with its parse (`run_job`, perhaps in a worker process) unless
    the check against the warehouse needs it first (`detect_here`): detection was a quarter
    of the loading process's work, which the workers can share."""
    try:
        raw = member.read()
    except OSError as exc:
        return Outcome.rejected(member.path, "file", f"cannot be read: {exc}")
    # UTF-16 / BOM text becomes UTF-8 once, before detection; the hash stays the file's.
    data, encoding_note = normalize_text_encoding(raw)
    screened = _screen_name(member.path, data)
    if screened is not None:
        return screened
    try:
        labels = resolver.labels_for(member.path)
    except LabelError as exc:
        fmt = detect_or_skip(member.path, data)  # a file no parser reads is skipped all the same
        if isinstance(fmt, Outcome):
            return fmt
        return Outcome.rejected(member.path, exc.origin, f"bad labels: {exc.reason}", fmt)
    case = hcibench_case_of(member.path, known_paths)
    labels.setdefault("result_per", "folder" if case else "file")
    source = source_for(member.path, raw, labels=labels, hcibench_case=case)
    job = ParseJob(None, data, source, encoding_note)
    return Prepared(job, labels, json.dumps(labels, sort_keys=True))


def detect_here(prepared: Prepared) -> Prepared | Outcome:
    """The prepared file with its format detected in this process, or why it is skipped."""
    if prepared.job.fmt is not None:
        return prepared
    fmt = detect_or_skip(prepared.source.path, prepared.job.data)
    if isinstance(fmt, Outcome):
        return fmt
    return replace(prepared, job=replace(prepared.job, fmt=fmt))


def load_member(
    writer: RawWriter, member: Member, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """Detect, parse and stage one file in this process; never raises for bad input.

    Only `claim`, `unclaim_ahead`, `find_same_content`, `find_by_path` and `release` of the
    writer are used for a file that is not staged, so a test can hand in a stand-in for
    files that never reach `stage`."""
    prepared = prepare_member(member, resolver, known_paths)
    if isinstance(prepared, Outcome):
        return prepared
    return stage_prepared(writer, prepared, lambda: run_job(prepared.job))


def _same_content(writer: RawWriter, prepared: Prepared) -> list[EarlierLoad]:
    """Earlier loads of these bytes with these labels in this HCIBench case: a loaded file
    is (bytes, labels, HCIBench case), so the same bytes under other labels are another
    result (a copy in two labelled folders), never replaced by this one."""
    source = prepared.source
    return [
        earlier
        for earlier in writer.find_same_content(source.sha256, source.hcibench_case)
        if earlier.labels_json == prepared.labels_json
    ]


def may_be_loaded(writer: RawWriter, prepared: Prepared) -> bool:
    """Whether these bytes are stored (or staged) with these labels: then the file may be
    already loaded, which its format's parser version decides (`likely_unchanged`)."""
    return bool(_same_content(writer, prepared))


def likely_unchanged(writer: RawWriter, prepared: Prepared) -> bool:
    """Whether the file (its format detected) looks already loaded, asked ahead of its turn
    and without its keys (to parse ahead only the files that need it): `stage_prepared`
    asks again, in walk order and holding the keys, and its answer is the one that counts."""
    fmt = prepared.job.fmt
    if fmt is None:
        raise ValueError(f"{prepared.source.path}: format not detected yet (detect_here)")
    version = PARSERS[fmt].PARSER_VERSION
    earlier = _same_content(writer, prepared)
    return _unchanged(prepared.source.path, fmt, earlier, prepared.labels_json, version) is not None


def stage_prepared(
    writer: RawWriter, prepared: Prepared, parse: Callable[[], ParsedFile | Outcome]
) -> Outcome:
    """Check a prepared file against what the warehouse holds and, unless it is already
    loaded, parse (`parse()`) and stage it; taken in walk order.

    A file whose format the parse detects is parsed first: a skipped one ends there, as it
    would have before its check. Team mode: no other loader checks or writes this path or
    these bytes until ours is committed (a no-op in file mode, where one loader runs at a
    time); a file that is not staged hands its keys back at once."""
    if prepared.job.fmt is None:
        parsed = parse()
        if isinstance(parsed, Outcome) and parsed.status == Status.SKIPPED:
            source = prepared.source
            writer.unclaim_ahead(source.path, source.sha256, source.hcibench_case)
            return parsed
        fmt = parsed.fmt if isinstance(parsed, ParsedFile) else None
        detected = detect_here(replace(prepared, job=replace(prepared.job, fmt=fmt)))
        if isinstance(detected, Outcome):  # cannot be: the parse detected a format
            return detected
        return stage_prepared(writer, detected, lambda: parsed)
    source = prepared.source
    writer.claim(source.path, source.sha256, source.hcibench_case)
    outcome = _check_and_stage(writer, prepared, parse)
    if outcome.status not in (Status.LOADED, Status.REPLACED):
        writer.release(source.path, source.sha256, source.hcibench_case)
    return outcome


def _check_and_stage(
    writer: RawWriter, prepared: Prepared, parse: Callable[[], ParsedFile | Outcome]
) -> Outcome:
    """The claimed file: already loaded (UNCHANGED), rejected by its parser, or parsed and
    staged (LOADED / REPLACED)."""
    fmt, path = prepared.job.fmt, prepared.source.path
    assert fmt is not None  # stage_prepared detected it
    module = PARSERS[fmt]
    same_content = _same_content(writer, prepared)
    unchanged = _unchanged(path, fmt, same_content, prepared.labels_json, module.PARSER_VERSION)
    if unchanged:
        return unchanged
    parsed = parse()
    if isinstance(parsed, Outcome):
        return parsed

    # Replace the earlier version at this path, or the same bytes with the same
    # labels loaded by an older parser version.
    old_ids = {e.source_file_id for e in same_content} | set(writer.find_by_path(path))
    status = Status.REPLACED if old_ids else Status.LOADED
    outcome = Outcome(
        path,
        status,
        fmt,
        rows=parsed.row_count,
        notes=list(parsed.notes),
        no_result=parsed.no_result_reason,
    )
    writer.stage(
        old_ids=old_ids,
        source_row=_source_row(prepared.source, module, parsed, prepared.labels),
        arrays=parsed.tables,
        module=module,
        outcome=outcome,
    )
    return outcome
