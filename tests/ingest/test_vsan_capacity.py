"""vSAN capacity reader: VsanSpaceUsage JSON/XML snapshots and hand-entered capacity.yaml.

The VsanSpaceUsage samples (shared/samples/vsan_capacity/generated-locally) are real pyVmomi
serializations with synthetic values chosen as the Micron RA's 28.58 TB / 3.48 TB (8.21x).
"""

from __future__ import annotations

import datetime as dt

import pytest

from ingest.parsers import vsan_capacity
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import assert_rejected, cases, parse_file

GENERATED = SAMPLES / "vsan_capacity" / "generated-locally"
OSA = "pyvmomi-9.1.1.0__VsanSpaceUsage_osa_dedup__"
ESA = "pyvmomi-9.1.1.0__VsanSpaceUsage_esa_9x__"
FIXTURE_DIR = FIXTURES / "vsan_capacity"
TIB = 1024**4


def _parse(path):
    return parse_file(vsan_capacity, path)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        pytest.param(OSA + "VmomiJSONEncoder.json", "space_usage_json", id="osa-json"),
        pytest.param(OSA + "serialize_vsan70u3.xml", "space_usage_xml", id="osa-xml"),
    ],
)
def test_osa_snapshot_logical_physical_and_breakdown(name, kind):
    parsed = _parse(GENERATED / name)
    (snap,) = parsed.tables["vsan_capacity_snapshots"]
    assert snap.source_kind == kind
    assert (snap.total_capacity_bytes, snap.free_capacity_bytes) == (76811882316431, 72831650223882)
    assert (snap.logical_used_bytes, snap.physical_used_bytes) == (31424042321838, 3826300464660)
    assert snap.logical_used_bytes / TIB == pytest.approx(28.58, abs=0.005)
    assert snap.physical_used_bytes / TIB == pytest.approx(3.48, abs=0.005)
    assert round(snap.ratio_computed, 2) == 8.21
    assert (snap.dedup_metadata_bytes, snap.compression_metadata_bytes) == (791648371998, 0)
    assert snap.ratio_reported is None and snap.ratio_matches_reported is None
    by_type = {r.obj_type: r for r in parsed.tables["vsan_space_usage_by_object_type"]}
    assert list(by_type) == [
        None,
        "vdisk",
        "namespace",
        "vmswap",
        "statsdb",
        "checksumOverhead",
        "dedupOverhead",
        "fileSystemOverhead",
    ]
    assert by_type[None].scope == "overview" and by_type[None].used_bytes == 3980232092549
    assert by_type["vdisk"].used_bytes == 30896276740505
    assert by_type["dedupOverhead"].overhead_bytes == 791648371998


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(ESA + "VmomiJSONEncoder.json", id="json"),
        pytest.param(ESA + "serialize.xml", id="xml"),
    ],
)
def test_esa_snapshot_keeps_reported_ratios_beside_computed(name):
    (snap,) = _parse(GENERATED / name).tables["vsan_capacity_snapshots"]
    assert snap.ratio_reported == 1.74
    assert snap.ratio_reported_source == "spaceEfficiencyRatio.overallRatio"
    assert (snap.compression_ratio, snap.dedup_ratio) == (1.45, 1.2)
    assert snap.ratio_computed == pytest.approx(32985348833280 / 21990232555520)
    assert (snap.esa_dedup_saving_bytes, snap.esa_compression_saving_bytes) == (
        4398046511104,
        6597069766656,
    )
    assert snap.used_without_overhead_bytes == 14843406974976


def test_hand_entered_micron_observation():
    parsed = _parse(FIXTURE_DIR / "valid" / "capacity.yaml")
    (snap,) = parsed.tables["vsan_capacity_snapshots"]
    assert (snap.used_before_value, snap.used_after_value, snap.unit_label) == (28.58, 3.48, "TB")
    assert (snap.ratio_reported, snap.ratio_reported_text, snap.ratio_tolerance) == (
        8.21,
        "8.21",
        0.005,
    )
    assert snap.ratio_computed == pytest.approx(8.2126, abs=1e-4)
    assert snap.ratio_matches_reported is True
    # TB as printed by vSphere is TiB: the same bytes as the API snapshot of the same capture
    assert snap.unit_bytes == TIB
    assert (snap.logical_used_bytes, snap.physical_used_bytes) == (31424042321838, 3826300464660)
    assert snap.captured_at == dt.datetime(2019, 5, 1, tzinfo=dt.UTC)
    assert snap.testbed == "micron-sata-vsan67"
    assert parsed.notes == []


def test_hand_entered_mismatch_is_flagged_not_rejected():
    parsed = _parse(FIXTURE_DIR / "valid" / "ratio_mismatch.yaml")
    (snap,) = parsed.tables["vsan_capacity_snapshots"]
    # 12.5 / 4.0 = 3.125, reported 3.2 +- 0.05
    assert snap.ratio_computed == 3.125 and snap.ratio_tolerance == 0.05
    assert snap.ratio_matches_reported is False
    assert snap.captured_at == dt.datetime(2024, 6, 8, 8, 15, tzinfo=dt.UTC)
    assert (snap.ftm, snap.ftt, snap.unit_bytes) == ("RAID-5", 1, 1024**3)
    assert "differs from the reported 3.2" in parsed.notes[0]


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


_BAD_BYTES = "expected a byte count, got 'lots'"


@pytest.mark.parametrize(
    ("name", "location", "reason"),
    cases(
        ("unknown-key", "unknown_key.yaml", "line 3", "unknown key 'colour'"),
        ("type", "wrong_type.yaml", "line 2", "used_after: expected a number > 0"),
        ("missing", "missing_field.yaml", "line 1", "missing required key(s): captured_at"),
        ("unit", "bad_unit.yaml", "line 3", "unit: expected one of B, KB"),
        ("json-type", "bad_bytes.json", "$.efficientCapacity.logicalCapacityUsed", _BAD_BYTES),
    ),
)
def test_bad_input_is_rejected_with_location(name, location, reason):
    assert_rejected(vsan_capacity, FIXTURE_DIR / "invalid" / name, location, reason)


def test_detect():
    for path in sorted(GENERATED.iterdir()):
        assert vsan_capacity.detect(path.read_bytes()[:65536], path.name), path
    yaml_path = FIXTURE_DIR / "valid" / "capacity.yaml"
    assert vsan_capacity.detect(yaml_path.read_bytes(), "capacity.yaml")
    for folder in ("fio", "esxtop", "hcibench", "vdbench", "vsan_perfsvc"):
        for path in sorted((SAMPLES / folder).rglob("*")):
            if path.is_file():
                assert not vsan_capacity.detect(path.read_bytes()[:65536], path.name), path
