"""A warehouse whose newest version failed the publish gate, for the gate and page tests.

Built with the real commands: a fio output written by Debian's fio is loaded and published,
then the main file gets a version that breaks a constraint and `ingest publish` refuses it.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tests.reliability.conftest import query, run_ingest

READ_IOPS = "select iops from raw.fio_job_directions where direction = 'read'"


@dataclass(frozen=True)
class FailedGate:
    db: Path
    fio_read_iops: float  # what fio printed: the published snapshot keeps it
    publish: subprocess.CompletedProcess  # the refused publish


def fio_json(folder: Path, name: str = "randread.json") -> Path:
    """A real fio 3.33 JSON output (600 random 4k reads of a 4 MiB file in `folder`)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / name
    subprocess.run(
        [
            "fio",
            "--name=job0",
            f"--filename={folder / 'data.bin'}",
            "--size=4m",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--number_ios=600",
            "--output-format=json",
            f"--output={out}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (folder / "data.bin").unlink()
    return out


def read_iops(db: Path) -> list[float]:
    return [iops for (iops,) in query(db, READ_IOPS)]


def failed_gate_warehouse(tmp: Path) -> FailedGate:
    """Load and publish a real fio output, then make the main file's read IOPS negative (the
    loader rejects a negative IOPS file, so the bad version is written the way a faulty model
    or an analyst's CLI session would) and let `ingest publish` refuse it."""
    out = fio_json(tmp / "fio")
    iops = json.loads(out.read_text())["jobs"][0]["read"]["iops"]
    db = tmp / "w.duckdb"
    loaded = run_ingest(db, "load", str(out), "--quiet")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    published = run_ingest(db, "publish")
    assert published.returncode == 0, published.stdout + published.stderr
    with duckdb.connect(str(db)) as con:
        con.execute("update raw.fio_job_directions set iops = -iops where direction = 'read'")
    refused = run_ingest(db, "publish")
    return FailedGate(db, iops, refused)
