"""The interval series fio_json writes: a ramp-up, AR(1)-correlated noise and latency by
Little's law, read back through the fio parser (per-interval differences of the dumps)."""

from __future__ import annotations

import statistics

import pytest

from ingest.parsers import fio
from ingest.sources import source_for
from synth.fio_json import DirectionTarget, JobSpec, status_interval_output
from synth.fio_results import ResultTarget, write_result


def _series(text: str, name: str = "vm-1.json") -> list:
    data = text.encode()
    parsed = fio.parse(data, source_for(f"/r/case/{name}", data))
    return [i for i in parsed.tables["fio_intervals"] if i.direction == "read"]


def _job(runtime_s: int, total_ios: int) -> JobSpec:
    return JobSpec(
        jobname="job0",
        rw="randread",
        rwmixread=None,
        block_size_bytes=4096,
        iodepth=8,
        read=DirectionTarget(total_ios=total_ios, mean_latency_ns=500_000.0),
        write=DirectionTarget(total_ios=0, mean_latency_ns=1.0),
        runtime_ms=runtime_s * 1000,
    )


def test_an_hour_of_5_s_dumps_ramps_up_then_moves_as_ar1() -> None:
    text = status_interval_output(
        [_job(3600, 36_000_000)], ended_at_epoch_s=1_700_000_000, interval_s=5, seed=11
    )
    rows = _series(text)
    assert len(rows) == 720
    # the totals are exact whatever the profile
    assert sum(r.ios for r in rows) == 36_000_000
    assert sum(r.interval_ms for r in rows) == 3_600_000
    iops = [r.iops for r in rows]
    plateau = statistics.median(iops[10:])
    assert plateau == pytest.approx(10_000, rel=0.02)
    # ramp-up: the first 5 s at about 1 - 0.25 e^(-2.5/3) = 0.89 of the plateau
    assert iops[0] < 0.93 * plateau and iops[1] < iops[2] + 0.03 * plateau
    # noise of a few percent whose neighbours move together (phi 0.6), not independent
    steady = iops[10:]
    assert 0.01 < statistics.stdev(steady) / plateau < 0.04
    assert 0.45 < statistics.correlation(steady[:-1], steady[1:]) < 0.75


def test_interval_latency_follows_littles_law() -> None:
    text = status_interval_output(
        [_job(120, 1_200_000)], ended_at_epoch_s=1_700_000_000, interval_s=5, seed=2
    )
    rows = _series(text)
    # fixed queue depth: latency x rate is the same in every interval (fio prints the
    # cumulative mean to 6 decimals, so the differenced latency is exact to ~1e-6)
    products = [r.lat_mean_ns * r.iops for r in rows]
    assert max(products) / min(products) == pytest.approx(1.0, abs=1e-4)
    weighted = sum(r.lat_mean_ns * r.ios for r in rows) / sum(r.ios for r in rows)
    assert weighted == pytest.approx(500_000.0, rel=1e-6)


def test_vms_of_one_test_share_the_clusters_profile(tmp_path) -> None:
    target = ResultTarget(
        rw="randread",
        block_size_bytes=4096,
        iodepth=8,
        numjobs=1,
        vm_count=2,
        total_iops=20_000,
        latency_ms=0.8,
        runtime_s=600,
        ended_at_epoch_s=1_700_000_000,
        seed=5,
    )
    one, two = write_result(tmp_path, target, ["vm-1", "vm-2"])
    a = [r.iops for r in _series(one.read_text(), one.name)][3:]
    b = [r.iops for r in _series(two.read_text(), two.name)][3:]
    assert len(a) == len(b) == 117
    # the shared profile (2 %) dominates each VM's own 1 %: the VMs move together
    assert statistics.correlation(a, b) > 0.6
