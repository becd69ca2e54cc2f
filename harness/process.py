"""Child processes the tests and benchmarks start (a Streamlit server, a loader)."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen, timeout_s: float = 15.0) -> None:
    """Ask the process to end (SIGTERM), and kill it if it has not within `timeout_s`."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
