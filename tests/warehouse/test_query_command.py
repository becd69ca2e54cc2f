"""`python -m ingest query` under the console's limits (issue 27: it had none).

GIVEN a small warehouse file
WHEN `ingest query` runs a statement DuckDB cannot interrupt, one that allocates gigabytes, one
whose result holds NaN and Infinity, or gets a negative --max-rows
THEN the runaway is stopped at the time limit with exit 1 (it ran past 60 s before), the big one
is refused in the child with exit 1 and almost nothing printed (it peaked at 5.7 GB and printed
800 MB before), JSON output is valid JSON (null for NaN and Infinity), and --max-rows -5 is a
usage error (exit 2; it was accepted with exit 0).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ONE_TABLE, REPO, marts_warehouse

RUNAWAY = "select levenshtein(repeat('a', 150000), repeat('b', 150000)) as d"
HUGE = "select range(0, 1000000) as l from range(300)"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return marts_warehouse(tmp_path_factory.mktemp("query") / "wh.duckdb", ONE_TABLE)


def query(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PERF_DUCKDB_PATH": str(db), "HOME": str(db.parent)}
    return subprocess.run(
        [sys.executable, "-m", "ingest", "query", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def test_a_runaway_query_is_stopped_at_the_time_limit(small: Path) -> None:
    done = query(small, "--timeout", "1", RUNAWAY)
    assert done.returncode == 1
    assert "ran longer than the 1 s limit and was stopped" in " ".join(done.stderr.split())
    assert done.stdout == ""


def test_a_query_past_the_memory_cap_is_refused_in_its_child(small: Path) -> None:
    done = query(small, "--max-rows", "100", HUGE)
    assert done.returncode == 1
    assert "needed more than the console's 768 MB of memory" in " ".join(done.stderr.split())
    assert len(done.stdout) < 1000


def test_json_output_has_no_nan_or_infinity(small: Path) -> None:
    sql = "select 'inf'::double as a, '-inf'::double as b, [1.5, 'nan'::double] as c, 2 as d"
    done = query(small, "--format", "json", sql)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert rows == [{"a": None, "b": None, "c": [1.5, None], "d": 2}]
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in rows[0].values())


@pytest.mark.parametrize("value", ["-5", "0", "many"])
def test_max_rows_must_be_a_positive_whole_number(small: Path, value: str) -> None:
    done = query(small, "--max-rows", value, "select 1")
    assert done.returncode == 2
    assert "--max-rows" in done.stderr and done.stdout == ""


def test_the_limits_are_stated_in_help(small: Path) -> None:
    done = query(small, "--help")
    text = " ".join(done.stdout.split())
    assert "--timeout SECONDS" in text and "768 MB of memory" in text and "10,000 rows" in text
