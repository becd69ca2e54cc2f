"""The labels of one file: the run.yaml files of its folder chain, then `--label`.

`ingest.labels` says what a label may be; this module finds which labels apply. A file on
disk is labelled by every run.yaml from `/` down to its folder (read once per folder); a
file inside an archive also by the run.yaml files inside that archive, which the walk hands
over before the files they describe (`add_label_file`). A broken run.yaml is remembered, so
every file under it is rejected naming that run.yaml, not only the first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ingest.labels import (
    LABEL_FILE_NAMES,
    MAX_FILE_BYTES,
    LabelError,
    check_merged,
    decode_label_file,
    merge,
    parse_label_file,
)
from ingest.redaction import redact_mapping
from ingest.walk import Member, folder_chain

_FolderLabels = dict[str, Any] | LabelError


def _parse(data: bytes, origin: str) -> _FolderLabels:
    try:
        return parse_label_file(decode_label_file(data, origin), origin)
    except LabelError as exc:
        return exc


def _too_large(size_bytes: int, origin: str) -> LabelError | None:
    # Checked before reading: a label file is never read past its cap.
    if size_bytes <= MAX_FILE_BYTES:
        return None
    reason = f"is {size_bytes} bytes; a label file may hold at most {MAX_FILE_BYTES}"
    return LabelError(origin, reason)


def _unwrap(found: _FolderLabels) -> dict[str, Any]:
    if isinstance(found, LabelError):
        raise found
    return found


def _read_from_disk(folder: str) -> _FolderLabels:
    # Inside an archive (`x.tgz!`, `x.tgz!/case`) only the run.yaml files met in the walk count.
    if "!" in folder:
        return {}
    for name in LABEL_FILE_NAMES:
        candidate = Path(folder) / name
        if candidate.is_file():
            origin = candidate.as_posix()
            try:
                too_large = _too_large(candidate.stat().st_size, origin)
                if too_large:
                    return too_large
                with candidate.open("rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except OSError as exc:
                return LabelError(origin, f"cannot be read: {exc.strerror or exc}")
            return _parse(data, origin)
    return {}


def _read_member(member: Member) -> _FolderLabels:
    too_large = _too_large(member.size_bytes, member.path)
    if too_large:
        return too_large
    try:
        data = member.read()
    except OSError as exc:
        return LabelError(member.path, f"cannot be read: {exc.strerror or exc}")
    return _parse(data, member.path)


class LabelResolver:
    """Labels for a file: run.yaml files from its folder chain, then --label."""

    def __init__(self, cli_labels: Mapping[str, Any]) -> None:
        self.cli_labels = dict(cli_labels)
        # folder -> its labels, or the error that makes them unusable
        self._by_folder: dict[str, _FolderLabels] = {}

    def add_label_file(self, member: Member) -> None:
        """Read a run.yaml met while walking; raises LabelError when invalid."""
        folder = member.path.rsplit("/", 1)[0]
        if folder not in self._by_folder:
            self._by_folder[folder] = _read_member(member)
        _unwrap(self._by_folder[folder])

    def _folder_labels(self, folder: str) -> dict[str, Any]:
        if folder not in self._by_folder:
            self._by_folder[folder] = _read_from_disk(folder)
        return _unwrap(self._by_folder[folder])

    def labels_for(self, logical_path: str) -> dict[str, Any]:
        """The merged labels of a file; raises LabelError naming the file at fault."""
        layers = [self._folder_labels(folder) for folder in folder_chain(logical_path)]
        merged = merge(*layers, self.cli_labels)
        check_merged(merged, "labels (run.yaml files and --label)")
        return redact_mapping(merged)  # every stored label passes here: no secret kept
