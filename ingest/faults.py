"""Crash points for the crash-safety tests (`tests/reliability/test_crash.py`).

`PERF_INGEST_KILL=<stage>:<n>` makes the process SIGKILL itself the n-th time it reaches
`stage` (1-based), exactly as a dropped SSH session or the OOM killer would end it: no
`finally`, no rollback, no flush. Stages: `before_commit` (a file's rows inserted, its
transaction not yet committed), `after_commit` (the file committed), `publish_copy` (the
snapshot copy written, not yet renamed). Unset in normal use, where each call is one
dictionary look-up.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_reached: Counter[str] = Counter()


def kill_point(stage: str) -> None:
    spec = os.environ.get("PERF_INGEST_KILL")
    if not spec:
        return
    _reached[stage] += 1
    if spec == f"{stage}:{_reached[stage]}":
        os.kill(os.getpid(), signal.SIGKILL)
