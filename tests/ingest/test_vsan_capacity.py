"""vSAN capacity reader: what the golden files cannot show.

What the parser makes of the VsanSpaceUsage samples (real pyVmomi serializations in
shared/samples/vsan_capacity/generated-locally, with synthetic values chosen as the Micron RA's
28.58 TB / 3.48 TB, 8.21x), of the hand-entered capacity.yaml fixtures and of the invalid
fixtures is in tests/ingest/golden/vsan_capacity (test_golden.py). Here: JSON and XML agree,
hand-entered TB are the API's TiB, the ratio tolerance rule, which files are not claimed.
"""

from __future__ import annotations

import dataclasses

import pytest

from ingest.parsers import vsan_capacity
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import parse_file

GENERATED = SAMPLES / "vsan_capacity" / "generated-locally"
OSA = "pyvmomi-9.1.1.0__VsanSpaceUsage_osa_dedup__"
ESA = "pyvmomi-9.1.1.0__VsanSpaceUsage_esa_9x__"
FIXTURE_DIR = FIXTURES / "vsan_capacity"
TIB = 1024**4


def _parse(path):
    return parse_file(vsan_capacity, path)


@pytest.mark.parametrize(
    ("json_name", "xml_name"),
    [
        pytest.param(OSA + "VmomiJSONEncoder.json", OSA + "serialize_vsan70u3.xml", id="osa"),
        pytest.param(ESA + "VmomiJSONEncoder.json", ESA + "serialize.xml", id="esa"),
    ],
)
def test_json_and_xml_of_one_snapshot_give_the_same_rows(json_name, xml_name):
    # GIVEN one VsanSpaceUsage serialized by pyVmomi as JSON and as SOAP XML
    from_json, from_xml = _parse(GENERATED / json_name), _parse(GENERATED / xml_name)
    # THEN both give the same rows, but for the input kind the snapshot names
    (json_snap,) = from_json.tables["vsan_capacity_snapshots"]
    (xml_snap,) = from_xml.tables["vsan_capacity_snapshots"]
    assert (json_snap.source_kind, xml_snap.source_kind) == ("space_usage_json", "space_usage_xml")
    assert dataclasses.replace(json_snap, source_kind="") == dataclasses.replace(
        xml_snap, source_kind=""
    )
    by_type = "vsan_space_usage_by_object_type"
    assert from_json.tables[by_type] == from_xml.tables[by_type]
    assert from_json.notes == from_xml.notes


def test_hand_entered_tb_is_tib_the_bytes_of_the_api_snapshot():
    # GIVEN the Micron figure typed in from the capacity view (28.58 TB / 3.48 TB) and the API
    # snapshot of the same capture
    (typed,) = _parse(FIXTURE_DIR / "valid" / "capacity.yaml").tables["vsan_capacity_snapshots"]
    (api,) = _parse(GENERATED / (OSA + "VmomiJSONEncoder.json")).tables["vsan_capacity_snapshots"]
    # THEN TB as printed by vSphere is TiB: the typed figures stand for the API's bytes
    assert typed.unit_bytes == TIB
    assert (typed.logical_used_bytes, typed.physical_used_bytes) == (
        api.logical_used_bytes,
        api.physical_used_bytes,
    )
    assert api.logical_used_bytes / TIB == pytest.approx(28.58, abs=0.005)
    assert api.physical_used_bytes / TIB == pytest.approx(3.48, abs=0.005)


@pytest.mark.parametrize(
    ("text", "tolerance"),
    [
        pytest.param("8.21", 0.005, id="two-decimals"),
        pytest.param("8.2", 0.05, id="one-decimal"),
        pytest.param("8", 0.5, id="integer"),
        pytest.param("8.210", 0.0005, id="trailing-zero"),
    ],
)
def test_ratio_tolerance_is_half_the_last_printed_digit(text, tolerance):
    assert vsan_capacity.ratio_tolerance(text) == pytest.approx(tolerance)


def test_detect_claims_no_other_tool_output_sample():
    for folder in ("fio", "esxtop", "hcibench", "vdbench", "vsan_perfsvc"):
        for path in sorted((SAMPLES / folder).rglob("*")):
            if path.is_file():
                assert not vsan_capacity.detect(path.read_bytes()[:65536], path.name), path
