"""One module per source study in ../shared/seeds; see synth.dataset.

Each study module exposes:

- `STUDY_ID: str`  the `source_document` id used in `marts.published_results`
- `write(root: Path) -> list[Path]`  writes the study's raw tool outputs and
  `run.yaml` labels under `root / STUDY_ID`, deterministically (fixed seeds,
  no clock), and returns the files written.
"""

from __future__ import annotations

from types import ModuleType

from synth.studies import (
    lenovo_sr650_vsan65_blog,
    micron_vsan62_vs_65_brief,
    micron_vsan67_sata_ra,
    samsung_pm1743_vsan8_esa,
    sfd7_vsan60_scaling,
)

STUDIES: tuple[ModuleType, ...] = (
    micron_vsan67_sata_ra,
    micron_vsan62_vs_65_brief,
    lenovo_sr650_vsan65_blog,
    samsung_pm1743_vsan8_esa,
    sfd7_vsan60_scaling,
)
