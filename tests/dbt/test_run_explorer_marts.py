"""The run explorer's marts (per-interval, per-output, percentile, histogram and host CPU
series) against numbers read from the raw files by hand (json / csv / regex)."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from datetime import UTC, datetime

import pytest

from tests.conftest import SAMPLES
from tests.dbt.test_hcibench_results import (
    FIO_FULL,
    VDB_MIXED,
    _final_fio_job,
    _vdbench_by_hand,
)

pytestmark = pytest.mark.slow

JSONPLUS = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"
ESXTOP = SAMPLES / "esxtop" / "rach-sharp_esxtopd__small-esxtop-data.csv"
MIB = 1.048576
# Vdbench interval line: tod, interval number, rate, MiB/s, bytes/io, read%, resp, ...
INTERVAL_LINE = re.compile(
    r"^\d\d:\d\d:\d\d\.\d+\s+(?P<n>\d+)\s+(?P<rate>[\d.]+)\s+(?P<mib>[\d.]+)\s+\d+"
    r"\s+[\d.]+\s+(?P<resp>[\d.]+)\s",
    re.MULTILINE,
)


def _result_id(built_warehouse, pattern: str) -> str:
    rows = built_warehouse.query(
        "select result_id from marts.fct_workload_results where result_key like ?", [pattern]
    )
    assert len(rows) == 1, rows
    return rows[0][0]


def test_outputs_are_the_per_vm_totals(built_warehouse) -> None:
    result_id = _result_id(built_warehouse, f"%::{VDB_MIXED}::%")
    rows = built_warehouse.query(
        "select output_label, iops, throughput_mb_s, avg_latency_ms, iops_vs_output_mean_pct "
        "from marts.fct_result_outputs where result_id = ? order by output_label",
        [result_id],
    )
    # avg_6-20 lines of the two VMs, read off the files
    assert [r[0] for r in rows] == [
        "hci-vdb-datastore-2004-0-1.txt",
        "hci-vdb-datastore-2004-0-2.txt",
    ]
    assert [r[1] for r in rows] == pytest.approx([2629.63, 2729.00])
    assert [r[2] for r in rows] == pytest.approx([10.27 * MIB, 10.66 * MIB])
    assert [r[3] for r in rows] == pytest.approx([0.678, 0.662])
    mean = (2629.63 + 2729.00) / 2
    assert rows[0][4] == pytest.approx(100 * (2629.63 - mean) / mean)
    assert sum(r[1] for r in rows) == pytest.approx(_vdbench_by_hand(VDB_MIXED)["iops"])


def test_fio_outputs_sum_to_the_result(built_warehouse) -> None:
    result_id = _result_id(built_warehouse, f"%::{FIO_FULL}::%")
    jobs = [_final_fio_job(p) for p in sorted(FIO_FULL.glob("hci-fio-*.json"))]
    rows = built_warehouse.query(
        "select iops from marts.fct_result_outputs where result_id = ? order by output_label",
        [result_id],
    )
    assert [r[0] for r in rows] == pytest.approx(
        [j["read"]["iops"] + j["write"]["iops"] for j in jobs]
    )


def test_vdbench_intervals_sum_the_vms(built_warehouse) -> None:
    result_id = _result_id(built_warehouse, f"%::{VDB_MIXED}::%")
    by_interval: dict[int, list[dict[str, float]]] = defaultdict(list)
    for path in sorted(VDB_MIXED.glob("hci-vdb-*.txt")):
        for m in INTERVAL_LINE.finditer(path.read_text()):
            by_interval[int(m["n"])].append({k: float(v) for k, v in m.groupdict().items()})
    rows = built_warehouse.query(
        "select interval_index, output_count, iops, throughput_mb_s, avg_latency_ms, elapsed_s "
        "from marts.fct_result_intervals where result_id = ? order by interval_index",
        [result_id],
    )
    assert [r[0] for r in rows] == sorted(by_interval)
    assert len(rows) == 20  # elapsed=30 + warmup=10 at interval=2
    for index, count, iops, mb_s, lat, _ in rows:
        vms = by_interval[index]
        assert count == len(vms) == 2
        assert iops == pytest.approx(sum(v["rate"] for v in vms))
        assert mb_s == pytest.approx(sum(v["mib"] for v in vms) * MIB)
        assert lat == pytest.approx(
            sum(v["resp"] * v["rate"] for v in vms) / sum(v["rate"] for v in vms)
        )
    assert rows[0][5] == 0
    assert rows[-1][5] == pytest.approx(38.0, abs=0.5)  # 19 intervals of 2 s later


def test_percentiles_without_histograms_are_upper_bounds(built_warehouse) -> None:
    result_id = _result_id(built_warehouse, f"%::{FIO_FULL}::%")
    jobs = [_final_fio_job(p) for p in sorted(FIO_FULL.glob("hci-fio-*.json"))]
    [(latency_ms, source, outputs)] = built_warehouse.query(
        "select latency_ms, latency_source, output_count from marts.fct_result_latency_percentiles "
        "where result_id = ? and direction = 'read' and percentile = 99",
        [result_id],
    )
    assert (source, outputs) == ("upper_bound_max_over_outputs", 2)
    assert latency_ms == pytest.approx(
        max(j["read"]["lat_ns"]["percentile"]["99.000000"] for j in jobs) / 1e6
    )


def test_histogram_and_percentiles_from_json_plus(built_warehouse) -> None:
    job = json.loads(JSONPLUS.read_text())["jobs"][0]
    result_id = _result_id(built_warehouse, f"%{JSONPLUS.name}%")
    hist = dict(
        built_warehouse.query(
            "select direction, sum(io_count) from marts.fct_result_latency_histogram "
            "where result_id = ? and is_complete group by direction",
            [result_id],
        )
    )
    # lat_percentiles=1: the total-latency (lat_ns) bins
    read_bins = sum(job["read"]["lat_ns"]["bins"].values())
    write_bins = sum(job["write"]["lat_ns"]["bins"].values())
    assert hist == {"read": read_bins, "write": write_bins, "all": read_bins + write_bins}
    [(read_p99, source)] = built_warehouse.query(
        "select latency_ms, latency_source from marts.fct_result_latency_percentiles "
        "where result_id = ? and direction = 'read' and percentile = 99",
        [result_id],
    )
    assert source == "exact_merged_histogram"
    bins = sorted((int(k), v) for k, v in job["read"]["lat_ns"]["bins"].items())
    running, want = 0, None
    for ns, count in bins:
        running += count
        if running >= 0.99 * read_bins:
            want = ns / 1e6
            break
    assert read_p99 == pytest.approx(want)
    [(all_p95,)] = built_warehouse.query(
        "select latency_ms from marts.fct_result_latency_percentiles "
        "where result_id = ? and direction = 'all' and percentile = 95",
        [result_id],
    )
    assert all_p95 == pytest.approx(0.092672)  # = fct_workload_results.p95 (test_dbt_build)


def test_host_cpu_samples_follow_the_esxtop_csv(built_warehouse) -> None:
    with ESXTOP.open(newline="") as handle:
        rows = list(csv.reader(handle))
    column = next(
        i for i, name in enumerate(rows[0]) if name.endswith("\\Physical Cpu(_Total)\\% Util Time")
    )
    want = [
        (datetime.strptime(r[0], "%m/%d/%Y %H:%M:%S").replace(tzinfo=UTC), float(r[column]))
        for r in rows[1:]
    ]
    got = built_warehouse.query(
        "select sampled_at, cpu_util_pct, host_name, source_tool "
        "from marts.fct_host_cpu_samples join raw.source_files using (source_file_id) "
        "where path like ? order by sampled_at",
        [f"%{ESXTOP.name}"],
    )
    assert [(g[0], g[1]) for g in got] == want
    assert {(g[2], g[3]) for g in got} == {("localhost.home", "esxtop")}
