"""Every latency a parser stores says which span it measures (issue 27): total, completion or
submission (`ingest.records.LatencyKind`).

fio measures all three; when its total latency `lat` is unusable (overflowed, NaN, absent) the
mean a result can use is the completion latency `clat`, and the row must say so rather than
leave a reader to guess. Vdbench's response time, HCIBench's latencies (fio's `lat` or Vdbench's
`resp`) and the vSAN performance service's are total. Inputs are real samples and fixtures; the
unusable `lat` is a real output with one value made impossible.
"""

from __future__ import annotations

import json
import re

import pytest

from ingest.parsers import fio, hcibench, vdbench, vsan_perfsvc
from ingest.records import LatencyKind
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import parse_bytes, parse_file

FIO = SAMPLES / "fio"
JSON_314 = FIO / "fioplot__fio-3.14__randread-1-1.json"


def _read_direction(parsed):
    (read,) = [d for d in parsed.tables["fio_job_directions"] if d.direction == "read"]
    return read


@pytest.mark.parametrize(
    "name",
    [
        "fioplot__fio-3.14__randread-1-1.json",
        "igluko_pve-scripts__fio-3.25__normal_8groups__fio.out",
        "generated-locally/fio-3.33__terse-v3-2jobs.txt",
        "pkb__fio-2.1.4__fio-parser-sample-result.json",
    ],
)
def test_fio_average_latency_is_total_when_fio_measured_it(name):
    parsed = parse_file(fio, FIO / name)
    for row in parsed.tables["fio_job_directions"]:
        if row.total_ios and row.lat_mean_ns is not None:
            assert row.avg_latency_kind == LatencyKind.total, row
            assert row.avg_latency_mean_ns == row.lat_mean_ns


def test_fio_average_latency_falls_back_to_completion_and_says_so():
    # GIVEN a real JSON whose read `lat_ns` mean is impossible (negative): lat is set aside
    text = JSON_314.read_text()
    lat = re.search(r'"lat_ns" : \{.*?"mean" : (?P<mean>[\d.]+)', text, re.DOTALL)
    text = text[: lat.start("mean")] + "-1.0" + text[lat.end("mean") :]
    read = _read_direction(parse_bytes(fio, text.encode(), "/drop/randread.json"))
    assert read.lat_mean_ns is None and read.unsound_reason
    # THEN the row's average latency is the completion latency, and it says which it is
    assert read.avg_latency_mean_ns == read.clat_mean_ns == pytest.approx(103252.531844)
    assert read.avg_latency_kind == LatencyKind.completion


def test_fio_direction_without_io_has_no_average_latency():
    # the failed job's directions: fio prints zeros, which are no latency
    parsed = parse_file(fio, FIXTURES / "fio" / "failed_jobs" / "fio-3.33__json_denied_only.json")
    for row in parsed.tables["fio_job_directions"]:
        assert row.total_ios == 0
        assert (row.avg_latency_mean_ns, row.avg_latency_kind) == (None, None)


def test_fio_interval_latency_says_its_kind():
    parsed = parse_file(fio, FIO / "generated-locally" / "fio-3.33__json-status-interval-1s.json")
    intervals = [i for i in parsed.tables["fio_intervals"] if i.lat_mean_ns is not None]
    assert intervals
    assert {i.avg_latency_kind for i in intervals} == {LatencyKind.total}


def test_vdbench_response_time_is_total_latency():
    path = (
        SAMPLES
        / "vdbench"
        / ("masakioui_vdb_oceanstor__vdbench50407_linux_quick_test_cpu_cols__summary.html")
    )
    parsed = parse_file(vdbench, path)
    (run,) = parsed.tables["vdbench_runs"]
    assert run.resp_ms == 0.008 and run.latency_kind == LatencyKind.total
    assert {i.latency_kind for i in parsed.tables["vdbench_intervals"]} == {LatencyKind.total}


def test_hcibench_summary_latency_is_total():
    path = next((FIXTURES / "hcibench" / "results" / "hcib28").glob("fio-*-res.txt"))
    blocks = parse_file(hcibench, path).tables["hcibench_summary_blocks"]
    assert blocks and {b.latency_kind for b in blocks} == {LatencyKind.total}


def test_vsan_perfsvc_latency_metrics_say_their_kind_and_others_have_none():
    path = (
        SAMPLES
        / "vsan_perfsvc"
        / "generated-locally"
        / ("pyvmomi-9.1.1.0__VsanPerfEntityMetricCSV_array__VmomiJSONEncoder.json")
    )
    rows = parse_file(vsan_perfsvc, path).tables["vsan_perfsvc_samples"]
    kinds = {(r.metric, r.latency_kind) for r in rows}
    assert ("latencyAvgRead", LatencyKind.total) in kinds
    assert ("iopsRead", None) in kinds
    assert json.dumps(sorted({k for _, k in kinds if k})) == '["total"]'
