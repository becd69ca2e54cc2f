"""Shared by the reference-study tests: generate, total fio outputs by parsing, load subsets."""

from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

from ingest.__main__ import main
from ingest.parsers import fio
from ingest.records import SourceFile

SEED_CSV = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "published_results.csv"


def seed_rows(document: str) -> dict[str, dict[str, str]]:
    with SEED_CSV.open(newline="") as f:
        return {r["figure_id"]: r for r in csv.DictReader(f) if r["source_document"] == document}


def folder_totals(base: Path) -> dict[str, dict]:
    """Per folder under `base` (relative path): fio outputs (each JSON file read by the real fio
    parser, no database), summed IOPS and MB/s (10^6), and the I/O-weighted mean latency of
    `raw.fio_job_directions` (fio lat), the arithmetic of the marts. Loading is checked on a
    subset (`load_subset`) and for whole studies by tests/test_reference_end_to_end.py."""
    sums: dict[str, dict] = {}
    for path in sorted(base.rglob("*.json")):
        data = path.read_bytes()
        source = SourceFile(str(path), path.name, str(path.parent), "0" * 64, len(data))
        rows = [d for d in fio.parse(data, source).tables["fio_job_directions"] if d.total_ios > 0]
        if not rows:
            continue
        folder = sums.setdefault(
            str(path.parent.relative_to(base)),
            {"outputs": 0, "iops": 0.0, "read_iops": 0.0, "write_iops": 0.0, "mb_s": 0.0,
             "weighted_ns": 0.0, "ios": 0},
        )  # fmt: skip
        folder["outputs"] += 1
        for d in rows:
            folder["iops"] += d.iops
            folder[f"{d.direction}_iops"] = folder.get(f"{d.direction}_iops", 0.0) + d.iops
            folder["mb_s"] += d.bw_bytes_per_s / 1e6
            folder["weighted_ns"] += d.lat_mean_ns * d.total_ios
            folder["ios"] += d.total_ios
    return {
        name: {**t, "latency_ms": t["weighted_ns"] / t["ios"] / 1e6} for name, t in sums.items()
    }


def generate_and_total(study, root: Path) -> dict[str, dict]:
    study.write(root)
    return folder_totals(root / study.STUDY_ID)


def load_subset(study_root: Path, keep: set[str], db: Path) -> int:
    """Load the study with only the `keep` folders (relative paths) left under it; the `run.yaml`
    files above them stay, so labels are inherited as in a full load. Returns the exit code."""
    for folder in sorted(p for p in study_root.rglob("*") if p.is_dir()):
        relative = str(folder.relative_to(study_root))
        kept = any(k == relative or k.startswith(relative + "/") for k in keep)
        inside_kept = any(relative.startswith(k + "/") for k in keep)
        if folder.exists() and not kept and not inside_kept:
            shutil.rmtree(folder)
    return main(["load", str(study_root.parent), "--db", str(db), "--quiet"])


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
