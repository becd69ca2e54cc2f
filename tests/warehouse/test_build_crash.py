"""A dbt process that dies (a crash in native code, out of memory) during `ingest build`:
the build says how it ended and records nothing, so the next build runs it again."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from warehouse import build
from warehouse.build import plan_build, run_build
from warehouse.file import FileWarehouse

CRASH = (
    "import faulthandler, os, signal\n"
    "assert faulthandler.is_enabled()\n"
    "os.kill(os.getpid(), signal.SIGSEGV)\n"
)


def test_a_dbt_that_crashes_is_named_by_its_signal_and_leaves_the_build_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a warehouse never built, and a dbt whose process dies of SIGSEGV (with Python's
    # fault handler on, which prints every thread's stack when it does)
    wh = FileWarehouse(tmp_path / "w.duckdb")
    monkeypatch.setattr(build, "dbt_command", lambda: [sys.executable, "-c", CRASH])
    said: list[str] = []
    # WHEN it builds
    outcome = run_build(wh, progress=said.append)
    # THEN the outcome is the signal, the last line names it and says what happens next
    assert outcome.status == -signal.SIGSEGV
    assert said[-1].startswith("dbt build was killed by SIGSEGV (signal 11); nothing is recorded")
    # and nothing was recorded: the next build is the same full build
    with wh.exclusive(writes=False):
        assert plan_build(wh, full=False)[0].kind == "full"


def test_a_failed_model_is_said_by_dbt_s_exit_status() -> None:
    assert build.dbt_failed(1) == "dbt build exited 1"
