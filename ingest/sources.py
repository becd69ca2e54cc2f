"""Build `SourceFile` descriptions for bytes the loader (or a test) holds."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Mapping
from typing import Any

from ingest.records import SourceFile


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def source_for(
    path: str,
    data: bytes,
    labels: Mapping[str, Any] | None = None,
    hcibench_case: str | None = None,
) -> SourceFile:
    """Describe `data` read from logical path `path` (`/` separated)."""
    return SourceFile(
        path=path,
        name=posixpath.basename(path),
        folder=posixpath.dirname(path),
        sha256=sha256_hex(data),
        size_bytes=len(data),
        labels=dict(labels or {}),
        hcibench_case=hcibench_case,
    )
