"""The fio status-interval writer produces output the fio parser reads back exactly."""

from __future__ import annotations

import pytest

from ingest.parsers import fio
from ingest.records import RunState
from ingest.sources import source_for
from synth.fio_json import (
    DirectionTarget,
    JobSpec,
    lognormal_quantiles,
    status_interval_output,
)


def _spec() -> JobSpec:
    return JobSpec(
        jobname="job0",
        rw="randrw",
        rwmixread=70,
        block_size_bytes=4096,
        iodepth=4,
        read=DirectionTarget(total_ios=3_150_000, mean_latency_ns=820_000.0),
        write=DirectionTarget(total_ios=1_350_000, mean_latency_ns=2_100_000.0),
        runtime_ms=3_600_000,
    )


def test_status_interval_round_trip_exact_totals_and_intervals():
    text = status_interval_output([_spec()], ended_at_epoch_s=1_700_000_000, interval_s=5, seed=3)
    data = text.encode()
    assert fio.detect(data[:65536], "vm-1.json")
    parsed = fio.parse(data, source_for("/r/case/vm-1.json", data))
    (run,) = parsed.tables["fio_runs"]
    assert run.is_finished and run.status_dump_count >= 700
    (job,) = parsed.tables["fio_jobs"]
    assert job.state is RunState.ok
    assert (job.rw, job.read_pct, job.block_size_bytes, job.iodepth) == ("randrw", 70, 4096, 4)
    assert job.ended_at.timestamp() == 1_700_000_000
    read = next(d for d in parsed.tables["fio_job_directions"] if d.direction == "read")
    assert read.total_ios == 3_150_000 and read.io_bytes == 3_150_000 * 4096
    assert read.iops == pytest.approx(3_150_000 / 3600, abs=1e-6)
    assert read.lat_mean_ns == pytest.approx(820_000.0)
    intervals = [i for i in parsed.tables["fio_intervals"] if i.direction == "write"]
    assert sum(i.ios for i in intervals) == 1_350_000
    assert sum(i.interval_ms for i in intervals) == 3_600_000
    pcts = {
        p.percentile: p.latency_ns
        for p in parsed.tables["fio_latency_percentiles"]
        if p.direction == "read" and p.latency_kind == "lat"
    }
    assert pcts[50.0] < 820_000 < pcts[95.0] < pcts[99.0] < pcts[99.9]


def test_lognormal_quantiles_have_the_requested_mean_shape():
    q = lognormal_quantiles(1_000_000.0, 0.35)
    # median of a lognormal is mean * exp(-sigma^2 / 2)
    assert q[50] == pytest.approx(1_000_000 * 2.718281828 ** (-(0.35**2) / 2), rel=1e-3)
    assert list(q.values()) == sorted(q.values())
