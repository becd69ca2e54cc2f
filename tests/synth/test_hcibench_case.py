"""hcibench_case: case folders and summaries that the real parsers read back, with the
summary numbers HCIBench's own arithmetic gives for the per-VM files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ingest.__main__ import main as ingest_main
from ingest.parsers import hcibench
from ingest.records import SourceFile
from synth import fio_json, hcibench_case, vdbench_text

RESOURCE = hcibench_case.ResourceUsage(41.07, 30.12, 6.35)
VSAN = hcibench_case.VsanConfig(
    hosts=("h1", "h2", "h3", "h4"),
    total_cache_disk_size_gb=7680,
    capacity_disks_per_disk_group=4,
    space_efficiency="Deduplication/Compression",
    fault_tolerance="RAID-5/6(ErasureCoding)-Capacity",
    capacity_gb=111760,
    free_space_gb=100000,
)


def _vdbench_outputs() -> dict[str, str]:
    run = vdbench_text.VdbenchRun("run1", 300, 60, 30, dt.datetime(2018, 6, 4, 12, 0, 0))
    totals = {
        "vm-1": vdbench_text.VdbenchTotals(1000.25, 70.0, 2.0, 1.5, 3.167, resp_stddev_ms=1.0),
        "vm-2": vdbench_text.VdbenchTotals(3000.50, 70.0, 1.0, 0.8, 1.467, resp_stddev_ms=0.5),
    }
    return {
        vm: vdbench_text.render_stdout(run, t, seed=i) for i, (vm, t) in enumerate(totals.items())
    }


def _fio_outputs() -> dict[str, str]:
    outputs = {}
    for vm, ios in (("vm-1", 30_000), ("vm-2", 60_000)):
        job = fio_json.JobSpec(
            jobname="job0",
            rw="randrw",
            rwmixread=70,
            block_size_bytes=4096,
            iodepth=4,
            read=fio_json.DirectionTarget(ios * 7 // 10, 2_000_000.0),
            write=fio_json.DirectionTarget(ios * 3 // 10, 4_000_000.0),
            runtime_ms=30_000,
        )
        outputs[vm] = fio_json.status_interval_output(
            [job], ended_at_epoch_s=1533686400, interval_s=10
        )
    return outputs


def _parse_summary(text: str, name: str):
    source = SourceFile(
        path=f"results/{name}-res.txt",
        name=f"{name}-res.txt",
        folder="results",
        sha256="0" * 64,
        size_bytes=len(text),
        hcibench_case=f"results/{name}",
    )
    return hcibench.parse(text.encode(), source)


def test_case_name_is_hcibench_generated() -> None:
    name = hcibench_case.case_name(
        "vdb", disks=8, working_set_pct=100, block_size="4k", read_pct=70, random_pct=100,
        threads=4, epoch=1528070400,
    )  # fmt: skip
    assert name == "vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1528070400"
    parsed = hcibench.parse_case_name(name)
    assert (parsed.read_pct, parsed.threads_per_disk, parsed.disks_per_vm) == (70, 4, 8)


def test_vdbench_summary_is_hcibench_arithmetic() -> None:
    text = hcibench_case.vdbench_summary(_vdbench_outputs(), resource=RESOURCE)
    block = _parse_summary(text, "vdb-case-1528070400").tables["hcibench_summary_blocks"][0]
    assert block.vm_count == 2
    assert block.iops == 4000.75  # sum of the avg_ rates
    assert block.latency_ms_vm_avg == 1.5  # plain mean of 2.0 and 1.0, not IO-weighted
    assert block.p95_latency_ms_normal_estimate == pytest.approx(1.5 + 1.645 * 0.75, abs=1e-4)
    mib = vdbench_text.mib_per_s(1000.25, 4096) + vdbench_text.mib_per_s(3000.5, 4096)
    assert block.throughput_mib_per_s == pytest.approx(mib, abs=0.005)


def test_fio_summary_is_hcibench_arithmetic() -> None:
    text = hcibench_case.fio_summary(_fio_outputs(), resource=RESOURCE)
    block = _parse_summary(text, "fio-case-1533686400").tables["hcibench_summary_blocks"][0]
    assert block.vm_count == 2
    assert block.iops == pytest.approx(90_000 / 30, abs=0.01)  # 1000 + 2000 IO/s
    assert block.read_latency_ms_vm_avg == 2.0 and block.write_latency_ms_vm_avg == 4.0
    # bw is integer KiB/s per VM, summed, integer-divided by 1024
    assert block.throughput_mib_per_s == (4000 + 8000) // 1024


def test_credentials_are_refused() -> None:
    with pytest.raises(ValueError, match="credentials"):
        hcibench_case.hcibench_cfg({"vc": "x", "vc_password": "secret"})


@pytest.mark.parametrize(
    "tool", [pytest.param("vdbench", id="vdbench"), pytest.param("fio", id="fio")]
)
def test_written_case_loads_without_rejections(tool: str, tmp_path: Path) -> None:
    outputs = _vdbench_outputs() if tool == "vdbench" else _fio_outputs()
    summary = (hcibench_case.vdbench_summary if tool == "vdbench" else hcibench_case.fio_summary)(
        outputs, resource=RESOURCE
    )
    short = "vdb" if tool == "vdbench" else "fio"
    name = hcibench_case.case_name(
        short, disks=2, working_set_pct=100, block_size="4k", read_pct=70, random_pct=100,
        threads=4, epoch=1528070400,
    )  # fmt: skip
    params = (
        hcibench_case.vdbench_cfg(disks=2, threads=4, xfersize="4k", read_pct=70, random_pct=100,
                                  elapsed_s=300, warmup_s=60, interval_s=30)
        if tool == "vdbench"
        else hcibench_case.fio_cfg(disks=2, iodepth=4, block_size_kib=4, read_pct=70,
                                   random_pct=100, runtime_s=30, warmup_s=0, working_set_pct=100)
    )  # fmt: skip
    written = hcibench_case.write_case(
        tmp_path / "results", name, tool, outputs, params, hcibench_case.vsan_cfg(VSAN),
        hcibench_case.hcibench_cfg({"tool": tool}), summary,
    )  # fmt: skip
    assert len(written) == 6
    assert (tmp_path / "results" / f"{name}-res.txt").is_file()
    db = tmp_path / "w.duckdb"
    assert ingest_main(["load", str(tmp_path / "results"), "--db", str(db), "--quiet"]) == 0
