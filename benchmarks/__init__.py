"""Benchmarks of the product's hot paths, and the one way they run a measured step."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_python(
    code: str, args: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -c code *args` in a fresh interpreter at the repo root (so a step's memory and
    imports are its own), output captured as text; raises TimeoutExpired past `timeout_s`."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
