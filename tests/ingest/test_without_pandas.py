"""`ingest load` runs without importing pandas (`ingest.without_pandas`): pyarrow's and
DuckDB's probes for pandas objects imported it in every loading process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import SAMPLES

REPO = Path(__file__).resolve().parents[2]


def _python(code: str, **env: str) -> list[str]:
    """The lines `code` prints, run in a fresh interpreter (pandas not imported yet)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


def test_loading_every_sample_never_imports_pandas(tmp_path):
    """Every format's parser, the writer's bound parameters and Arrow scans, in one process:
    the load stores the samples and pandas stays unimported."""
    lines = _python(
        f"""
        import sys
        from ingest.__main__ import main
        rc = main(["load", {str(SAMPLES)!r}, "--db", {str(tmp_path / "w.duckdb")!r}, "--quiet"])
        import duckdb
        con = duckdb.connect({str(tmp_path / "w.duckdb")!r}, read_only=True)
        formats = con.execute("select count(distinct format) from raw.source_files").fetchone()
        print(rc, formats[0], "pandas" in sys.modules)
        """,
        PERF_INGEST_PARSE_WORKERS="0",
    )
    rc, formats, pandas_imported = lines[-1].split()
    assert rc == "1"  # the samples hold one file that is only fio's error text: rejected
    assert int(formats) >= 6  # fio, esxtop, HCIBench, Vdbench, vSAN performance, capacity
    assert pandas_imported == "False"


def test_refused_pandas_says_why_and_comes_back_after():
    lines = _python(
        """
        from ingest.without_pandas import answer_pyarrow_probe, pandas_refused
        with pandas_refused():
            try:
                import pandas
            except ModuleNotFoundError as exc:
                print("refused:", exc)
        answer_pyarrow_probe()  # as a parse worker does
        import pyarrow as pa
        print(type(pa.table({"a": [1]}).to_pandas()).__name__)
        """
    )
    assert lines[0] == "refused: pandas is not imported while files load (ingest/without_pandas.py)"
    assert lines[1] == "DataFrame"
