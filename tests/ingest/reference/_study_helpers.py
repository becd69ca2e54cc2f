"""Shared by the reference-study tests: generate, load, and read results back from raw tables."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import duckdb

from ingest.__main__ import main

SEED_CSV = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "published_results.csv"

# Per folder: per-VM outputs, summed IOPS and MB/s, I/O-weighted mean latency (fio lat).
FOLDER_TOTALS = """
select s.folder,
       count(distinct s.source_file_id) as outputs,
       sum(d.iops) as iops,
       sum(d.iops) filter (where d.direction = 'read') as read_iops,
       sum(d.iops) filter (where d.direction = 'write') as write_iops,
       sum(d.bw_bytes_per_s) / 1e6 as mb_s,
       sum(d.lat_mean_ns * d.total_ios) / sum(d.total_ios) / 1e6 as latency_ms
from raw.fio_job_directions d
join raw.source_files s on s.source_file_id = d._source_file_id
where d.total_ios > 0
group by s.folder
"""


def seed_rows(document: str) -> dict[str, dict[str, str]]:
    with SEED_CSV.open(newline="") as f:
        return {r["figure_id"]: r for r in csv.DictReader(f) if r["source_document"] == document}


def generate_and_load(study, root: Path, db: Path) -> dict[str, dict]:
    study.write(root)
    assert main(["load", str(root), "--db", str(db), "--quiet"]) == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(FOLDER_TOTALS)
        names = [c[0] for c in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
    base = root / study.STUDY_ID
    return {str(Path(r["folder"]).relative_to(base)): r for r in rows}


def digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
