"""The fixture makers still write the committed fixtures byte for byte.

The HCIBench maker runs real fio, whose numbers differ on every run, so it replays the committed
per-VM fio outputs; every other file (parameter files, Vdbench stdouts, the `-res.txt`
summaries computed from the per-VM files, resource tables) is written afresh and compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from synth.fixtures import hcibench, vsan_observer
from tests.synth._study_checks import digest
from warehouse import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures"


@pytest.mark.parametrize(
    ("name", "write", "generated"),
    [
        ("hcibench", lambda folder: hcibench.write(folder, FIXTURES / "hcibench"), "results"),
        ("vsan_observer", vsan_observer.write, "valid"),
    ],
    ids=["hcibench", "vsan_observer"],
)
def test_maker_rewrites_the_committed_fixtures(name, write, generated, tmp_path: Path) -> None:
    write(tmp_path)
    written = digest(tmp_path / generated)
    assert written and written == digest(FIXTURES / name / generated)
