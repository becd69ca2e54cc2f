"""`ingest build`'s plan and record stay light: a build with nothing to do is about 0.4 s, and
importing pandas (which DuckDB's client does at the first bound parameter) was 0.3 s of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from warehouse.base import REPO_ROOT

PLAN_AND_RECORD = """
import sys
from pathlib import Path
from warehouse import build_state
from warehouse.build import _record, plan_build
from warehouse.file import FileWarehouse

wh = FileWarehouse(Path(sys.argv[1]))
with wh.exclusive(writes=True):
    plan, state = plan_build(wh, full=False)
    assert plan.kind == "full", plan
    _record(wh, state)
    again, _ = plan_build(wh, full=False)
    assert again.kind == "nothing", again
con = wh.connect_writer()
assert build_state.read_state(con) == state
con.close()
assert "pandas" not in sys.modules, "pandas was imported"
"""


def test_the_plan_and_the_record_of_a_build_never_import_pandas(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PLAN_AND_RECORD, str(tmp_path / "w.duckdb")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
