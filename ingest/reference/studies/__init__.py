"""One module per source study in ../shared/seeds; see ingest.reference.dataset.

Each study module exposes:

- `STUDY_ID: str`  the `source_document` id used in `marts.published_results`
- `write(root: Path) -> list[Path]`  writes the study's raw tool outputs and
  `run.yaml` labels under `root / STUDY_ID`, deterministically (fixed seeds,
  no clock), and returns the files written.
"""

from __future__ import annotations

from types import ModuleType

STUDIES: tuple[ModuleType, ...] = ()
