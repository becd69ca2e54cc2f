"""vSAN performance-service reader: VsanPerfEntityMetricCSV JSON, SOAP stats dump, PowerCLI CSV.

Values asserted are read from the files: shared/samples/vsan_perfsvc/generated-locally (real
pyVmomi serializers, synthetic numbers) and the PowerCLI export fixture built from the real
Get-VsanStat output in William Lam's mapping README.
"""

from __future__ import annotations

import datetime as dt

import pytest

from ingest.parsers import vsan_perfsvc
from tests.conftest import FIXTURES, SAMPLES, source_of
from tests.ingest.conftest import assert_rejected, cases, parse_file, rejection

GENERATED = SAMPLES / "vsan_perfsvc" / "generated-locally"
JSON_SAMPLE = GENERATED / "pyvmomi-9.1.1.0__VsanPerfEntityMetricCSV_array__VmomiJSONEncoder.json"
DUMP_SAMPLE = GENERATED / "pyvmomi-9.1.1.0__vsan-perfsvc-status_with_dump_layout__synthetic.txt"
FIXTURE_DIR = FIXTURES / "vsan_perfsvc"
CLUSTER = "52b8d0c2-1f9c-4e3a-9d7e-0a1b2c3d4e5f"
HOST = "5f60e727-3b12-e650-9fe0-b47af135162a"


def _rows(path):
    parsed = parse_file(vsan_perfsvc, path)
    return parsed, parsed.tables["vsan_perfsvc_samples"]


def _values(rows, entity_type, entity_id, metric):
    return [
        (r.sampled_at.strftime("%H:%M"), r.value, r.unit)
        for r in rows
        if (r.entity_type, r.entity_id, r.metric) == (entity_type, entity_id, metric)
    ]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        pytest.param(JSON_SAMPLE, "api_json", id="vmomi-json"),
        pytest.param(DUMP_SAMPLE, "soap_dump", id="soap-stats-dump"),
    ],
)
def test_both_serializations_give_the_same_series(path, kind):
    parsed, rows = _rows(path)
    assert {r.source_kind for r in rows} == {kind}
    # cluster-domclient iopsRead 41210,41388,41007,40954 at 12:00..12:15 UTC, 300 s interval
    assert _values(rows, "cluster-domclient", CLUSTER, "iopsRead") == [
        ("12:00", 41210, "IO/s"),
        ("12:05", 41388, "IO/s"),
        ("12:10", 41007, "IO/s"),
        ("12:15", 40954, "IO/s"),
    ]
    assert rows[0].sampled_at == dt.datetime(2026, 6, 8, 12, 0, tzinfo=dt.UTC)
    assert rows[0].collect_interval_s == 300
    # latency stays in microseconds, throughput in bytes per second
    assert _values(rows, "cluster-domclient", CLUSTER, "latencyAvgRead")[0] == ("12:00", 812, "us")
    assert _values(rows, "cluster-domclient", CLUSTER, "throughputWrite")[0] == (
        "12:00",
        72339456,
        "B/s",
    )
    # per host: host-domclient; its latencyAvgWrite "1502,1511,1560,None" loses the None point
    assert [v for _, v, _ in _values(rows, "host-domclient", HOST, "latencyAvgWrite")] == [
        1502,
        1511,
        1560,
    ]
    assert _values(rows, "vsan-cpu", HOST, "usedPct")[0] == ("12:00", 7.25, "%")
    assert "skipped 1 missing values (None or empty)" in parsed.notes
    assert len(rows) == 8 * 4 + 4 * 4 - 1 + 4


def test_json_entity_with_empty_sample_info_adds_no_rows():
    parsed, rows = _rows(JSON_SAMPLE)
    assert not [r for r in rows if r.entity_type == "cluster-domcompmgr"]
    assert "1 entities had no samples (empty sampleInfo)" in parsed.notes


def test_powercli_export_is_mapped_to_api_labels():
    parsed, rows = _rows(FIXTURE_DIR / "valid" / "get-vsanstat_export.csv")
    first = rows[0]
    assert (first.source_kind, first.entity_type, first.entity_id) == (
        "powercli_csv",
        None,
        "VSAN-Cluster",
    )
    assert (first.metric, first.powercli_name, first.value, first.unit) == (
        "iopsRead",
        "VMConsumption.ReadIops",
        1,
        None,
    )
    assert first.sampled_at == dt.datetime(2017, 4, 21, 14, 50, tzinfo=dt.UTC)
    assert first.is_client_local_time
    backend = [
        (r.sampled_at.strftime("%H:%M"), r.value) for r in rows if "Backend" in r.powercli_name
    ]
    assert backend == [("14:50", 2), ("14:55", 4)]
    assert any("client local time" in note for note in parsed.notes)


@pytest.mark.parametrize(
    ("label", "unit"),
    [
        pytest.param("iopsRecWrite", "IO/s", id="iops"),
        pytest.param("tputResyncRead", "B/s", id="tput"),
        pytest.param("latAvgResyncRead", "us", id="resync-latency"),
        pytest.param("latencyDevRead", "us", id="device-latency"),
        pytest.param("rxPacketsLossRate", "permille", id="loss"),
        pytest.param("clientCacheHitRate", "%", id="hit-rate"),
        pytest.param("oio", "count", id="oio"),
        pytest.param("someNewLabel", None, id="unknown"),
    ],
)
def test_units_from_labels(label, unit):
    assert vsan_perfsvc.unit_of(label) == unit


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param(JSON_SAMPLE, True, id="json"),
        pytest.param(DUMP_SAMPLE, True, id="dump"),
        pytest.param(FIXTURE_DIR / "valid" / "get-vsanstat_export.csv", True, id="powercli"),
        pytest.param(
            SAMPLES
            / "vsan_perfsvc"
            / "equelin_vsanmetrics__VsanPerfGetSupportedEntityTypes_markdown__entities.md",
            False,
            id="markdown-not-data",
        ),
    ],
)
def test_detect(path, expected):
    assert vsan_perfsvc.detect(path.read_bytes()[:65536], path.name) is expected


def test_detect_claims_no_tool_output_sample():
    for folder in ("fio", "esxtop", "hcibench", "vdbench", "vsan_capacity"):
        for path in sorted((SAMPLES / folder).rglob("*")):
            if path.is_file():
                assert not vsan_perfsvc.detect(path.read_bytes()[:65536], path.name), path


@pytest.mark.parametrize(
    ("name", "location", "reason"),
    cases(
        ("count", "values_count.txt", "line 2", "iopsRead: 3 values for 4 timestamps"),
        (
            "timestamp",
            "bad_sampleinfo.json",
            "$[0].sampleInfo",
            "bad sampleInfo timestamp '08/06/2026 12:05'",
        ),
        ("powercli-time", "bad_time.csv", "line 3", "unrecognised Time 'yesterday'"),
    ),
)
def test_bad_input_is_rejected_with_location(name, location, reason):
    error = assert_rejected(vsan_perfsvc, FIXTURE_DIR / "invalid" / name, location, reason)
    assert error.reason == reason


def test_fuzz_regression_infinite_collect_interval_is_a_parse_error() -> None:
    # GIVEN the real pyVmomi JSON with metricsCollectInterval 1e999, which json reads as
    # infinity (found by fuzzing: int(inf) raised OverflowError)
    data = JSON_SAMPLE.read_bytes().replace(
        b'"metricsCollectInterval": 300', b'"metricsCollectInterval": 1e999', 1
    )
    error = rejection(vsan_perfsvc, data, source_of(JSON_SAMPLE)[1])
    # the shared JSON reader (`_common.load_json`) refuses the overflow where it is written
    line = data[: data.index(b"1e999")].count(b"\n") + 1
    assert error.location.startswith(f"line {line}, column ")
    assert "1e999" in error.reason and "Infinity" in error.reason


def test_fuzz_regression_csv_field_over_the_csv_limit_is_a_parse_error() -> None:
    # GIVEN the PowerCLI export with an unterminated quote opening a 200 KB field (found by
    # fuzzing: csv.Error "field larger than field limit" escaped)
    path = FIXTURE_DIR / "valid" / "get-vsanstat_export.csv"
    lines = path.read_bytes().split(b"\n")
    lines[2] = b'"' + lines[2] + b"x" * 200_000
    data = b"\n".join(lines)
    error = rejection(vsan_perfsvc, data, source_of(path)[1])
    assert error.location == "line 3"
    assert error.reason == "bad CSV: field larger than field limit (131072)"
