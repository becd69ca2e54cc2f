"""Shared by the reference-study tests: the seed's figures and the cluster numbers computed
from the generated per-VM files (the same arithmetic as the marts: IOPS summed, latency
IO-weighted)."""

from __future__ import annotations

import csv
import re
from decimal import Decimal
from pathlib import Path

from ingest.parsers import vdbench
from ingest.records import SourceFile
from ingest.reference.hcibench_case import final_fio_dump

SEED_CSV = Path(__file__).parents[3] / "dbt_project" / "seeds" / "published_results.csv"


def seed_rows(document: str) -> list[dict[str, str]]:
    with SEED_CSV.open(newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["source_document"] == document]


def half_unit(printed: str) -> float:
    """Half a unit in the last printed digit of the seed `value` ('4.23' -> 0.005)."""
    exponent = Decimal(printed).normalize().as_tuple().exponent
    return 0.5 * 10 ** min(0, exponent) if exponent < 0 else 0.5


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
