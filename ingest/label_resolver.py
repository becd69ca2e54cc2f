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

from ingest.labels import LABEL_FILE_NAMES, LabelError, check_merged, merge, parse_label_file
from ingest.walk import Member, folder_chain

_FolderLabels = dict[str, Any] | LabelError


def _parse(text: str, origin: str) -> _FolderLabels:
    try:
        return parse_label_file(text, origin)
    except LabelError as exc:
        return exc


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
            text = candidate.read_text(encoding="utf-8", errors="replace")
            return _parse(text, candidate.as_posix())
    return {}


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
            text = member.read().decode("utf-8", errors="replace")
            self._by_folder[folder] = _parse(text, member.path)
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
        return merged
