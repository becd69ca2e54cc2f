"""vSAN Observer reader: static-bundle jsonstats files and the raw JSON-lines capture.

No public Observer capture exists; the fixtures are built by
`synth/fixtures/vsan_observer.py` from a designed set of per-interval numbers (see its
docstring), in the file layouts of the Observer source. The values asserted here are those design
numbers (esx01 client reads: 1000, 1100, 1050 IOPS at 800, 820, 790 us, ...).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ingest.parsers import vsan_observer
from ingest.sources import source_for
from tests.conftest import FIXTURES, SAMPLES, source_of
from tests.ingest.conftest import assert_rejected, cases, parse_bytes, rejection, rows_of

FIXTURE_DIR = FIXTURES / "vsan_observer"
CAPTURE = FIXTURE_DIR / "valid" / "observer.json"
BUNDLE = FIXTURE_DIR / "valid" / "vsan-observer-2024-06-08.10-00-00" / "jsonstats"
ESX01, ESX02 = "esx01.lab.local", "esx02.lab.local"
CACHE01 = "52a1b2c3-0000-4000-8000-000000000001"
# Snapshot times: 10:00:00.5 UTC on 2024-06-08, then every 60 s; the first point is dropped.
T1, T2, T3 = (dt.datetime(2024, 6, 8, 10, m, 0, 500000, tzinfo=dt.UTC) for m in (1, 2, 3))
TABLE = "vsan_observer_samples"


def _series(rows, entity_type, host, metric, entity=None) -> list[tuple[dt.datetime, float]]:
    return [
        (r.sampled_at, r.value)
        for r in rows
        if (r.entity_type, r.host, r.metric, r.entity) == (entity_type, host, metric, entity)
    ]


def _bundle_rows():
    rows = []
    for path in sorted(BUNDLE.rglob("*.json")):
        if vsan_observer.detect(path.read_bytes()[:65536], path.name):
            rows += rows_of(vsan_observer, path, TABLE)
    return rows


# The designed points after dropping the first, in the same series of the two captures.
# fmt: off
EXPECTED = [  # id, entity_type, host, entity, metric, values, unit
    ("client-r-iops-01", "dom_client", ESX01, None, "read_iops", [1000, 1100, 1050], "IO/s"),
    ("client-r-iops-02", "dom_client", ESX02, None, "read_iops", [900, 950, 1000], "IO/s"),
    ("client-r-lat-01", "dom_client", ESX01, None, "read_latency_us", [800, 820, 790], "us"),
    ("client-w-lat-02", "dom_client", ESX02, None, "write_latency_us", [1600, 1620, 1580],
     "us"),
    ("client-r-bw-01", "dom_client", ESX01, None, "read_bytes_per_s",
     [4096000, 4505600, 4300800], "B/s"),
    ("client-w-cong-01", "dom_client", ESX01, None, "write_congestion", [2, 2, 2], "number"),
    ("client-total-01", "dom_client", ESX01, None, "total_iops", [1500, 1620, 1530], "IO/s"),
    ("owner-w-lat-01", "dom_owner", ESX01, None, "write_latency_us", [1400, 1390, 1420], "us"),
    ("backend-w-iops-01", "dom_compmgr", ESX01, None, "write_iops", [1000, 1040, 960], "IO/s"),
    ("backend-rw-lat-01", "dom_compmgr", ESX01, None, "recovery_write_latency_us", [0, 2000, 0],
     "us"),
    ("lsom-payload-lat-01", "lsom_host", ESX01, None, "payload_latency_us", [250, 240, 260], "us"),
    ("disk-r-lat", "physdisk", ESX01, "naa.5000c500a1b20001", "read_latency_us",
     [2400, 2500, 2450], "us"),
    ("disk-w-sectors", "physdisk", ESX01, "naa.55cd2e404c0a0001", "write_sectors_per_s",
     [8000, 8320, 7680], "512B-sectors/s"),
    ("wb-fill-01", "ssd", ESX01, CACHE01, "write_buffer_fill_pct", [35, 40, 38], "%"),
    ("ssd-cong-01", "lsom_congestion", ESX01, CACHE01, "ssd_congestion", [0, 12, 0], "number"),
    ("pcpu0-01", "pcpu", ESX01, "0", "used_pct", [40, 45, 50], "%"),
    ("worlds-01", "vsan_worlds", ESX01, None, "run_time_s_per_s", [0.40, 0.47, 0.44], "s/s"),
    ("mem-01", "system_mem", ESX01, None, "mem_used_pct", [62, 64, 65], "%"),
]
# fmt: on


@pytest.mark.parametrize(
    ("entity_type", "host", "entity", "metric", "values", "unit"),
    cases(*EXPECTED),
)
@pytest.mark.parametrize("capture", ["bundle", "raw"])
def test_designed_values_from_bundle_and_raw_capture(
    capture, entity_type, host, entity, metric, values, unit, bundle_rows, capture_rows
):
    # GIVEN the same Observer capture as a static bundle and as raw JSON lines
    rows = bundle_rows if capture == "bundle" else capture_rows
    # WHEN the series is picked out THEN it has the designed per-interval values, first point gone
    series = _series(rows, entity_type, host, metric, entity)
    assert [t for t, _ in series] == [T1, T2, T3]
    assert [v for _, v in series] == pytest.approx(values)
    assert {r.unit for r in rows if r.metric == metric and r.entity_type == entity_type} == {unit}


@pytest.fixture(scope="module")
def bundle_rows():
    return _bundle_rows()


@pytest.fixture(scope="module")
def capture_rows():
    return rows_of(vsan_observer, CAPTURE, TABLE)


def test_cluster_sum_file_has_no_host_and_weighted_latency():
    rows = rows_of(vsan_observer, BUNDLE / "dom" / "domclientsum.json", TABLE)
    assert {r.host for r in rows} == {None}
    assert _series(rows, "dom_client_cluster", None, "read_iops")[0] == (T1, 1900)
    # (1000 * 800 + 900 * 850) / 1900
    assert _series(rows, "dom_client_cluster", None, "read_latency_us")[0][1] == pytest.approx(
        823.6842105
    )


def test_raw_and_bundle_agree_wherever_both_have_a_point(bundle_rows, capture_rows):
    def key(r):
        return (r.entity_type, r.host, r.entity, r.metric, r.sampled_at)

    raw = {key(r): r.value for r in capture_rows}
    both = [(k, v) for k, v in ((key(r), r.value) for r in bundle_rows) if k in raw]
    assert len(both) > 300
    assert all(raw[k] == pytest.approx(v) for k, v in both)


def test_raw_capture_skips_the_truncated_line_and_says_so():
    parsed = vsan_observer.parse(*source_of(CAPTURE))
    assert parsed.notes[0].startswith("skipped 1 bad JSON lines (first: line 3:")
    assert {r.capture for r in parsed.tables["vsan_observer_samples"]} == {"raw"}


def test_dom_file_rows_carry_group_host_and_observer_name():
    rows = rows_of(vsan_observer, BUNDLE / "dom" / "domobj-client-esx01.lab.local.json", TABLE)
    first = next(r for r in rows if r.observer_metric == "readLatency")
    assert (first.capture, first.stats_group, first.entity_type, first.host) == (
        "bundle",
        "dom",
        "dom_client",
        ESX01,
    )
    assert (first.metric, first.unit, first.sampled_at, first.value) == (
        "read_latency_us",
        "us",
        T1,
        800,
    )


def test_archive_member_path_gives_group_and_host():
    # GIVEN a member of a vsan-observer tar.gz as the loader names it
    path = BUNDLE / "pcpu" / "pcpu-esx02.lab.local.json"
    logical = "/x/vsan-observer-2024.tar.gz!/jsonstats/pcpu/pcpu-esx02.lab.local.json"
    rows = parse_bytes(vsan_observer, path.read_bytes(), logical).tables[TABLE]
    assert {(r.stats_group, r.entity_type, r.host) for r in rows} == {("pcpu", "pcpu", ESX02)}
    assert _series(rows, "pcpu", ESX02, "used_pct", "1") == [(T1, 10), (T2, 12), (T3, 14)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("dom/domobj-client-esx01.lab.local.json", True, id="full-file"),
        pytest.param("dom/domobj-client-esx01.lab.local_thumb.json", False, id="thumb-skipped"),
        pytest.param("misc/timerange.json", False, id="no-series"),
        pytest.param("mem/heaps-esx01.lab.local.json", False, id="values-only"),
    ],
)
def test_detect_bundle_files(name, expected):
    data = (BUNDLE / name).read_bytes()
    assert vsan_observer.detect(data[:65536], Path(name).name) is expected


def test_detect_raw_capture():
    assert vsan_observer.detect(CAPTURE.read_bytes()[:65536], "observer.json")


def test_detect_claims_no_other_real_sample():
    for path in sorted(SAMPLES.rglob("*")):
        if path.is_file() and path.name != "PROVENANCE.md":
            assert not vsan_observer.detect(path.read_bytes()[:65536], path.name), path


INVALID = FIXTURE_DIR / "invalid"


_DOM = "jsonstats/dom/domobj-client-esx0{}.lab.local.json"


@pytest.mark.parametrize(
    ("name", "location", "reason"),
    cases(
        ("length-mismatch", _DOM.format(9), "$.stats.readCount", "2 times but 3 avgs"),
        ("non-numeric", _DOM.format(8), "$.stats.readCount.avgs[2]", "bad value 'fast'"),
        ("truncated-json", _DOM.format(7), "line 2, column 15", "invalid JSON"),
        ("all-bad", "observer.json", "line 1", "no valid inventory-snapshot line"),
    ),
)
def test_bad_input_is_rejected_with_location(name, location, reason):
    assert_rejected(vsan_observer, INVALID / name, location, reason)


def test_thumb_file_handed_to_parse_is_rejected():
    path = BUNDLE / "dom" / "domobj-client-esx01.lab.local_thumb.json"
    assert "down-sampled" in rejection(vsan_observer, *source_of(path)).reason


def test_fuzz_regression_time_beyond_year_9999_is_a_parse_error() -> None:
    # GIVEN a real bundle file whose third readCount time is corrupt (found by fuzzing:
    # datetime raised OverflowError instead of a clean rejection)
    import json

    path = BUNDLE / "dom" / "domobj-client-esx01.lab.local.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["stats"]["readCount"]["times"][2] = 1.7179e31
    data = json.dumps(doc).encode()
    # WHEN parsed THEN it is rejected at that time stamp
    error = rejection(vsan_observer, data, source_for(path.as_posix(), data))
    assert error.location == "$.stats.readCount.times[2]"
    assert error.reason == "bad time 1.7179e+31"
