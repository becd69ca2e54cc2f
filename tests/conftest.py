"""Shared test settings: where the real samples live, and small helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.records import SourceFile
from ingest.sources import source_for

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PERF_SHARED_DIR", REPO.parent / "shared")).resolve()
SAMPLES = SHARED / "samples"
FIXTURES = REPO / "tests" / "fixtures"


def source_of(
    path: Path, labels: dict | None = None, hcibench_case: str | None = None
) -> tuple[bytes, SourceFile]:
    """Bytes of a file and the SourceFile the loader would hand a parser."""
    data = path.read_bytes()
    return data, source_for(path.as_posix(), data, labels=labels, hcibench_case=hcibench_case)


@pytest.fixture(scope="session")
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.fail(f"real samples not found at {SAMPLES}: check out ../shared beside the repo")
    return SAMPLES
