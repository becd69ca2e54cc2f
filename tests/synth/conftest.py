"""Fixtures of the synth tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def study_folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test module's `study` written once, into a folder of its own; its study folder."""
    study = request.module.study
    root = tmp_path_factory.mktemp(study.STUDY_ID)
    study.write(root)
    return root / study.STUDY_ID
