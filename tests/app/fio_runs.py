"""Short real fio runs for the upload tests: Debian's fio 3.33, JSON output."""

from __future__ import annotations

import subprocess
from pathlib import Path

FIO_ARGS = (
    "--bs=4k", "--size=8M", "--runtime=1", "--time_based", "--ioengine=psync",
    "--rw=randread", "--output-format=json",
)  # fmt: skip


def make_fio_json(work: Path, name: str) -> Path:
    """One run: a second of 4 KiB random reads on an 8 MiB file; its JSON in `work`."""
    out = work / f"{name}.json"
    cmd = ["fio", f"--name={name}", f"--filename={work / 'fio-data'}", f"--output={out}"]
    done = subprocess.run([*cmd, *FIO_ARGS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return out
