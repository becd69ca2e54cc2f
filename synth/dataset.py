"""`python -m synth reference DIR` (alias `python -m ingest reference DIR`): the reference
dataset, rebuilt from the figures the five source studies publish.

Every file is written in a real tool format (HCIBench result folders, per-VM
fio JSON, esxtop captures, capacity observations) with `run.yaml` labels, so
loading DIR and running `dbt build` reproduces the published numbers. The
data is reconstructed, not measured: the top-level `run.yaml` labels every
row `data_origin: reconstructed`, and the dashboard says so.
"""

from __future__ import annotations

from pathlib import Path

from synth.studies import STUDIES

ROOT_LABELS = (
    "# Reconstructed from published figures by `python -m ingest reference`;\n"
    "# not measured data. See docs/reference_studies.md.\n"
    "data_origin: reconstructed\n"
)


def write_reference_dataset(root: Path) -> list[Path]:
    """Write every study under `root`; returns the files written."""
    root.mkdir(parents=True, exist_ok=True)
    labels = root / "run.yaml"
    labels.write_text(ROOT_LABELS)
    written = [labels]
    for study in STUDIES:
        written.extend(study.write(root))
    return written
