"""Every study writes the same files with the same bytes each time (fixed seeds, no clock)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from synth.studies import STUDIES
from tests.synth._study_checks import digest


@pytest.mark.parametrize("study", STUDIES, ids=[s.STUDY_ID for s in STUDIES])
def test_generating_twice_gives_identical_bytes(study: ModuleType, tmp_path: Path) -> None:
    study.write(tmp_path / "first")
    study.write(tmp_path / "again")
    first = digest(tmp_path / "first" / study.STUDY_ID)
    assert first and first == digest(tmp_path / "again" / study.STUDY_ID)
