"""Issue 3 at mart level: HCIBench cases in `marts.fct_workload_results` against figures
recomputed by hand from the per-VM files (json / regex on the raw text, never the marts).

The fixture tree is built by synth/fixtures/hcibench.py: per-VM fio JSON
(status-interval dumps, the final one has `eta == 0`; a VM that finished early has none),
per-VM Vdbench console output (the `avg_` line is the run's total) and HCIBench's `-res.txt`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.dbt.conftest import HCIBENCH_RESULTS

pytestmark = pytest.mark.slow

FIO_PARTIAL = (
    HCIBENCH_RESULTS / "hcib28" / "fio-4vmdk-50ws-8k-70rdpct-100randompct-2threads-1700100000"
)
FIO_FULL = (
    HCIBENCH_RESULTS / "hcib25-fio" / "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000"
)
VDB_MIXED = (
    HCIBENCH_RESULTS / "hcib25-vdb" / "vdb-2vmdk-100ws-4k-70rdpct-100randompct-2threads-1700400000"
)
VDB_PARTIAL = (
    HCIBENCH_RESULTS / "hcib28" / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
)
SUMMARY_ONLY = (
    HCIBENCH_RESULTS / "hcib28" / "group1-fio-1vmdk-100ws-64k-0rdpct-0randompct-1threads-1700300000"
)
MIB = 1.048576  # MB per MiB

# Vdbench `avg_` line: tod, label, rate, MiB/s, bytes/io, read%, resp, read resp, write resp
AVG_LINE = re.compile(
    r"^\S+\s+avg_\S+\s+(?P<rate>[\d.]+)\s+(?P<mib>[\d.]+)\s+\d+\s+(?P<read_pct>[\d.]+)"
    r"\s+(?P<resp>[\d.]+)\s+(?P<read_resp>[\d.]+)\s+(?P<write_resp>[\d.]+)",
    re.MULTILINE,
)


def _final_fio_job(path: Path) -> dict | None:
    """The job of the dump with `eta == 0` (fio's final report), None if the VM never got there."""
    text, decoder, pos, final = path.read_text(), json.JSONDecoder(), 0, None
    while (start := text.find("{", pos)) != -1:
        doc, pos = decoder.raw_decode(text, start)
        if doc["jobs"][0]["eta"] == 0:
            final = doc["jobs"][0]
    return final


def _fio_by_hand(case: Path) -> dict[str, float]:
    jobs = [_final_fio_job(p) for p in sorted(case.glob("hci-fio-*.json"))]
    done = [j for j in jobs if j is not None]
    dirs = [j[d] for j in done for d in ("read", "write")]

    def weighted(ds: list[dict]) -> float:
        return sum(d["lat_ns"]["mean"] * d["total_ios"] for d in ds) / sum(
            d["total_ios"] for d in ds
        )

    return {
        "vm_count": len(done),
        "vms_excluded": len(jobs) - len(done),
        "iops": sum(d["iops"] for d in dirs),
        "mb_s": sum(d["bw_bytes"] for d in dirs) / 1e6,
        "avg_ms": weighted(dirs) / 1e6,
        "read_ms": weighted([j["read"] for j in done]) / 1e6,
        "write_ms": weighted([j["write"] for j in done]) / 1e6,
    }


def _vdbench_by_hand(case: Path) -> dict[str, float]:
    files = sorted(case.glob("hci-vdb-*.txt"))
    avgs = [
        {k: float(v) for k, v in m.groupdict().items()}
        for p in files
        if (m := AVG_LINE.search(p.read_text()))
    ]
    rate = sum(a["rate"] for a in avgs)
    reads = sum(a["rate"] * a["read_pct"] for a in avgs)
    writes = sum(a["rate"] * (100 - a["read_pct"]) for a in avgs)
    return {
        "vm_count": len(avgs),
        "vms_excluded": len(files) - len(avgs),
        "iops": rate,
        "mb_s": sum(a["mib"] for a in avgs) * MIB,
        "avg_ms": sum(a["resp"] * a["rate"] for a in avgs) / rate,
        "read_ms": sum(a["read_resp"] * a["rate"] * a["read_pct"] for a in avgs) / reads,
        "write_ms": (
            sum(a["write_resp"] * a["rate"] * (100 - a["read_pct"]) for a in avgs) / writes
            if writes
            else None
        ),
    }


def _res_txt(case: Path) -> dict[str, float]:
    text = case.with_name(case.name + "-res.txt").read_text()
    iops = re.search(r"^IOPS\s*=\s*([\d.]+)", text, re.MULTILINE)
    mb_s = re.search(r"^THROUGHPUT\s*=\s*([\d.]+)", text, re.MULTILINE)
    assert iops and mb_s, text
    return {"iops": float(iops.group(1)), "mib_s": float(mb_s.group(1))}


def _mart_row(built_warehouse, case: Path) -> dict:
    cols = (
        "source_tool, vm_count, vms_excluded, is_partial, is_summary_derived, iops, "
        "throughput_mb_s, avg_latency_ms, read_latency_ms, write_latency_ms, "
        "summary_iops, summary_iops_delta_pct, summary_throughput_delta_pct"
    )
    rows = built_warehouse.query(
        f"select {cols} from marts.fct_workload_results where result_key like ?",
        [f"%::{case}::%"],
    )
    assert len(rows) == 1, rows
    return dict(zip([c.strip() for c in cols.split(",")], rows[0], strict=True))


@pytest.mark.parametrize(
    ("case", "by_hand", "tool"),
    [
        pytest.param(FIO_FULL, _fio_by_hand, "fio", id="fio-2.5-two-vms"),
        pytest.param(FIO_PARTIAL, _fio_by_hand, "fio", id="fio-2.8-one-vm-finished-early"),
        pytest.param(VDB_MIXED, _vdbench_by_hand, "vdbench", id="vdbench-2.5-mixed-70-30"),
        pytest.param(VDB_PARTIAL, _vdbench_by_hand, "vdbench", id="vdbench-2.8-one-vm-unfinished"),
    ],
)
def test_per_vm_case_matches_hand_sums(built_warehouse, case, by_hand, tool) -> None:
    want = by_hand(case)
    got = _mart_row(built_warehouse, case)
    assert got["source_tool"] == tool
    assert (got["vm_count"], got["vms_excluded"]) == (want["vm_count"], want["vms_excluded"])
    assert got["is_partial"] is (want["vms_excluded"] > 0)
    assert got["is_summary_derived"] is False
    assert got["iops"] == pytest.approx(want["iops"], rel=1e-9)
    assert got["throughput_mb_s"] == pytest.approx(want["mb_s"], rel=1e-9)
    assert got["avg_latency_ms"] == pytest.approx(want["avg_ms"], rel=1e-9)
    assert got["read_latency_ms"] == pytest.approx(want["read_ms"], rel=1e-9)
    if want["write_ms"] is None:
        assert got["write_latency_ms"] is None
    else:
        assert got["write_latency_ms"] == pytest.approx(want["write_ms"], rel=1e-9)


def test_finished_early_vm_is_excluded(built_warehouse) -> None:
    # VM 3 of the 2.8 fio case has no eta == 0 dump: HCIBench and the mart both leave it out.
    assert _final_fio_job(FIO_PARTIAL / "hci-fio-datastore-2004-0-3.json") is None
    got = _mart_row(built_warehouse, FIO_PARTIAL)
    assert (got["vm_count"], got["vms_excluded"], got["is_partial"]) == (2, 1, True)


@pytest.mark.parametrize(
    ("case", "by_hand"),
    [
        pytest.param(FIO_FULL, _fio_by_hand, id="fio-2.5"),
        pytest.param(FIO_PARTIAL, _fio_by_hand, id="fio-2.8"),
        pytest.param(VDB_MIXED, _vdbench_by_hand, id="vdbench-2.5"),
    ],
)
def test_res_txt_cross_check_is_recorded(built_warehouse, case, by_hand) -> None:
    want, res = by_hand(case), _res_txt(case)
    got = _mart_row(built_warehouse, case)
    assert got["summary_iops"] == pytest.approx(res["iops"])
    assert got["summary_iops_delta_pct"] == pytest.approx(
        100 * (res["iops"] - want["iops"]) / want["iops"], abs=1e-9
    )
    # HCIBench prints MiB/s as "MB/s" (fio: whole MiB/s from integer KiB/s): a real mismatch
    assert got["summary_throughput_delta_pct"] == pytest.approx(
        100 * (res["mib_s"] * MIB - want["mb_s"]) / want["mb_s"], abs=1e-9
    )


def test_fio_throughput_mismatch_of_whole_mib_is_visible(built_warehouse) -> None:
    got = _mart_row(built_warehouse, FIO_FULL)
    assert got["summary_throughput_delta_pct"] < -0.1  # 199 MiB/s printed for 199.6


def test_summary_only_case_is_summary_derived(built_warehouse) -> None:
    res = _res_txt(SUMMARY_ONLY)
    got = _mart_row(built_warehouse, SUMMARY_ONLY)
    assert got["source_tool"] == "hcibench_summary"
    assert got["is_summary_derived"] is True
    assert (got["vm_count"], got["vms_excluded"], got["is_partial"]) == (3, 0, False)
    assert got["iops"] == pytest.approx(5127.49)
    assert got["iops"] == pytest.approx(res["iops"])
    assert got["throughput_mb_s"] == pytest.approx(320.00 * MIB)
    assert got["write_latency_ms"] == pytest.approx(0.5841)
    # nothing to cross-check a summary against
    assert got["summary_iops_delta_pct"] is None
