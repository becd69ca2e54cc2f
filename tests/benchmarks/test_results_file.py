"""`python -m benchmarks` writes benchmarks/RESULTS.md, which is committed: no path of the
machine that ran it may reach it (the checkout's, the shared samples')."""

from __future__ import annotations

import re

from benchmarks.__main__ import REPO, _without_machine_paths


def test_paths_of_the_checkout_and_the_shared_samples_are_taken_out(monkeypatch) -> None:
    shared = REPO.parent / "elsewhere" / "shared"
    monkeypatch.setenv("PERF_SHARED_DIR", str(shared))
    output = (
        f"warehouse {REPO}/benchmarks/out/dashboard/w.serving.duckdb (59 MB)\n"
        f"  -m ingest load {shared}/samples ... exit 1 in 4.5 s\n"
        f"cwd {REPO}\n"
    )
    cleaned = _without_machine_paths(output)
    assert cleaned == (
        "warehouse benchmarks/out/dashboard/w.serving.duckdb (59 MB)\n"
        "  -m ingest load ../shared/samples ... exit 1 in 4.5 s\n"
        "cwd .\n"
    )
    assert str(REPO) not in cleaned and str(shared) not in cleaned


# An absolute path under a machine's usual roots (a checkout, a home, a temporary folder).
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|home|root|tmp|Users|var|srv|mnt)/\S*")


def test_the_committed_results_hold_no_machine_path() -> None:
    results = (REPO / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    assert str(REPO) not in results
    assert MACHINE_PATH.findall(results) == []
