"""The report in team mode names the lake snapshot it was made from.

GIVEN a lake (a throw-away PostgreSQL catalog, tests/lake/conftest.py) with one real fio output
loaded under a testbed label, built and published by the product's own commands
WHEN `python -m ingest report` writes that testbed's report from the lake
THEN the cover of the HTML and of the PDF names the snapshot the dashboard serves (the
published one, `served_snapshot()`), and the provenance appendix lists the output relative to
the folder given to `ingest load`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lake.conftest import lake_target, pg_cluster
from tests.lake.test_lake_build import lake_env, run
from tests.lake.test_lake_publish import BUILD_FIO, fio_output
from tests.report.test_report import REPO, _pages
from warehouse import LakeWarehouse

__all__ = ["lake_target", "pg_cluster"]

pytestmark = pytest.mark.slow

TESTBED = "lake-lab"
# The provenance mart too: the appendix lists the output's path within its load root.
BUILD_REPORT = ("--select", *BUILD_FIO[1:3], "+fct_result_source_files", *BUILD_FIO[3:])


def test_a_report_from_a_lake_names_the_published_snapshot(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    root = tmp_path / "outputs"
    fio_output(root / "run1", "vm1.json")
    env = lake_env(lake_target, tmp_path / "work")
    run(env, "load", str(root), "--label", f"testbed={TESTBED}", "--quiet")
    run(env, "build", *BUILD_REPORT)
    run(env, "publish")
    served = lake_target.reader().served_snapshot()
    assert served is not None
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "ingest", "report", "--testbed", TESTBED, "--out", str(out)]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr + done.stdout

    html = (out / f"{TESTBED}-report.html").read_text()
    assert f'<th scope="row">Lake snapshot</th><td>{served}</td>' in html
    cover = " ".join(_pages(out / f"{TESTBED}-report.pdf")[0].split())
    assert f"Lake snapshot {served}" in cover
    text = " ".join(" ".join(_pages(out / f"{TESTBED}-report.pdf")).split())
    # the appendix heads the result with its folder within the load root, then its file
    assert re.search(r"Result [0-9a-f]{32} · run1 output [0-9a-f]{64} vm1\.json", text), text
    assert str(root) not in text
