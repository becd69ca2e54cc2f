"""vSAN performance-service reader: what the golden files cannot show.

What the parser makes of shared/samples/vsan_perfsvc/generated-locally (real pyVmomi
serializers, synthetic numbers), of the PowerCLI export fixture built from the real Get-VsanStat
output in William Lam's mapping README and of the invalid fixtures is in
tests/ingest/golden/vsan_perfsvc (test_golden.py). Here: the two serializations agree, units
by label, which files are not claimed, fuzzed inputs.
"""

from __future__ import annotations

import dataclasses

import pytest

from ingest.parsers import vsan_perfsvc
from tests.conftest import FIXTURES, SAMPLES, source_of
from tests.ingest.conftest import parse_file, rejection

GENERATED = SAMPLES / "vsan_perfsvc" / "generated-locally"
JSON_SAMPLE = GENERATED / "pyvmomi-9.1.1.0__VsanPerfEntityMetricCSV_array__VmomiJSONEncoder.json"
DUMP_SAMPLE = GENERATED / "pyvmomi-9.1.1.0__vsan-perfsvc-status_with_dump_layout__synthetic.txt"
FIXTURE_DIR = FIXTURES / "vsan_perfsvc"


def _rows(path):
    return parse_file(vsan_perfsvc, path).tables["vsan_perfsvc_samples"]


def test_both_serializations_give_the_same_rows():
    # GIVEN the same query result as pyVmomi JSON and as a SOAP stats dump
    json_rows = _rows(JSON_SAMPLE)
    dump_rows = _rows(DUMP_SAMPLE)
    # THEN they give the same rows, but for the input kind each names
    assert {r.source_kind for r in json_rows} == {"api_json"}
    assert {r.source_kind for r in dump_rows} == {"soap_dump"}
    assert len(json_rows) == 51
    assert [dataclasses.replace(r, source_kind="") for r in json_rows] == [
        dataclasses.replace(r, source_kind="") for r in dump_rows
    ]


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


def test_markdown_samples_are_not_claimed():
    # the entity-type listing and the README quoting Get-VsanStat output are documents, not data
    markdown = sorted((SAMPLES / "vsan_perfsvc").glob("*.md"))
    assert len(markdown) == 2
    for path in markdown:
        assert not vsan_perfsvc.detect(path.read_bytes()[:65536], path.name), path


def test_detect_claims_no_tool_output_sample():
    for folder in ("fio", "esxtop", "hcibench", "vdbench", "vsan_capacity"):
        for path in sorted((SAMPLES / folder).rglob("*")):
            if path.is_file():
                assert not vsan_perfsvc.detect(path.read_bytes()[:65536], path.name), path


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
