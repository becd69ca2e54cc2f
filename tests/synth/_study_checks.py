"""Shared by the reference-study tests: the seed's figures, the cluster numbers computed from
the generated per-VM files (the same arithmetic as the marts: IOPS summed, latency
IO-weighted), and loading a study or part of it."""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
from pathlib import Path

from ingest.__main__ import main
from ingest.parsers import fio, vdbench
from ingest.parsers._common import half_unit_of_last_digit
from ingest.records import SourceFile
from synth.fio_json import final_fio_dump
from synth.published import SEED_CSV


def seed_rows(document: str) -> list[dict[str, str]]:
    """The seed's rows of one source document, as text (the checks read `value` as printed)."""
    with SEED_CSV.open(newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["source_document"] == document]


def seed_by_id(document: str) -> dict[str, dict[str, str]]:
    return {row["figure_id"]: row for row in seed_rows(document)}


# Half a unit in the last printed digit of the seed `value` ('4.23' -> 0.005).
half_unit = half_unit_of_last_digit


def holds(measured: float, row: dict[str, str]) -> bool:
    """Does `measured` reproduce the seed figure within the rounding its qualifier allows?"""
    value = float(row["value"])
    kind = row["qualifier"]
    if kind == "exact":
        tolerance = 500 if row["metric"] == "iops" and value % 1000 == 0 and value >= 1e4 else 0
        return abs(measured - value) <= max(tolerance, half_unit(row["value"]))
    if kind == "approx":
        return abs(measured - value) <= (2 if row["unit"] == "%" else 0.05 * abs(value))
    if kind == "more_than":
        return measured > value if value >= 0 else measured < value
    if kind == "less_than":
        return 0 <= measured < value if value > 0 else value < measured <= 0
    if kind == "abs_less_than":
        return abs(measured) < abs(value)
    raise ValueError(kind)


def vdbench_cluster(case: Path) -> tuple[float, float]:
    """(IOPS, IO-weighted mean latency ms) of one HCIBench Vdbench case folder."""
    iops = weighted = 0.0
    for path in sorted(case.glob("*.txt")):
        data = path.read_bytes()
        source = SourceFile(str(path), path.name, str(case), "0" * 64, len(data))
        (run,) = vdbench.parse(data, source).tables["vdbench_runs"]
        iops += run.iops
        weighted += run.iops * run.resp_ms
    return iops, weighted / iops


def fio_cluster(case: Path) -> dict[str, float]:
    """IOPS, MB/s (10^6), IO-weighted mean latency and max p95 (ms) of a fio case folder."""
    iops = ios = lat = mb = 0.0
    p95 = 0.0
    for path in sorted(case.glob("*.json")):
        for job in final_fio_dump(path.read_text())["jobs"]:
            for d in ("read", "write"):
                part = job[d]
                iops += part["iops"]
                ios += part["total_ios"]
                lat += part["total_ios"] * part["lat_ns"]["mean"] / 1e6
                mb += part["bw_bytes"] / 1e6
                p95 = max(p95, part["lat_ns"]["percentile"]["95.000000"] / 1e6)
    return {"iops": iops, "lat": lat / ios, "mb": mb, "p95": p95}


def case_read_pct(case: Path) -> int:
    return int(re.search(r"-(\d+)rdpct-", case.name).group(1))


def pct(new: float, old: float) -> float:
    return 100 * (new - old) / old


def folder_totals(base: Path) -> dict[str, dict]:
    """Per folder under `base` (relative path): fio outputs (each JSON file read by the real fio
    parser, no database), summed IOPS and MB/s (10^6), and the I/O-weighted mean latency of
    `raw.fio_job_directions` (fio lat), the arithmetic of the marts. Loading is checked on a
    subset (`load_subset`) and for whole studies by tests/test_reference_end_to_end.py."""
    sums: dict[str, dict] = {}
    for path in sorted(base.rglob("*.json")):
        data = path.read_bytes()
        if not fio.detect(data[:65536], path.name):  # e.g. a VsanSpaceUsage capacity snapshot
            continue
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


def loads_cleanly(root: Path, db: Path) -> bool:
    """Does `ingest load` take everything under `root` without a rejection?"""
    return main(["load", str(root), "--db", str(db), "--quiet"]) == 0
