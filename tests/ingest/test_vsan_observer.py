"""vSAN Observer reader: what the golden files cannot show.

No public Observer capture exists; the fixtures are built by
`synth/fixtures/vsan_observer.py` from a designed set of per-interval numbers (see its
docstring), in the file layouts of the Observer source. What the parser makes of every bundle
file and of the raw capture (the designed values: esx01 client reads 1000, 1100, 1050 IOPS at
800, 820, 790 us, ...), of the `_thumb` file and of the invalid fixtures is in
tests/ingest/golden/vsan_observer (test_golden.py). Here: the two captures agree, a member of an
archive takes its group and host from its path, which files are not claimed, a fuzzed time.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from ingest.parsers import vsan_observer
from ingest.sources import source_for
from tests.conftest import FIXTURES, SAMPLES
from tests.ingest.conftest import parse_bytes, rejection, rows_of

FIXTURE_DIR = FIXTURES / "vsan_observer"
CAPTURE = FIXTURE_DIR / "valid" / "observer.json"
BUNDLE = FIXTURE_DIR / "valid" / "vsan-observer-2024-06-08.10-00-00" / "jsonstats"
ESX02 = "esx02.lab.local"
# Snapshot times: 10:00:00.5 UTC on 2024-06-08, then every 60 s; the first point is dropped.
T1, T2, T3 = (dt.datetime(2024, 6, 8, 10, m, 0, 500000, tzinfo=dt.UTC) for m in (1, 2, 3))
TABLE = "vsan_observer_samples"


def _series(rows, entity_type, host, metric, entity=None) -> list[tuple[dt.datetime, float]]:
    return [
        (r.sampled_at, r.value)
        for r in rows
        if (r.entity_type, r.host, r.metric, r.entity) == (entity_type, host, metric, entity)
    ]


@pytest.fixture(scope="module")
def bundle_rows():
    rows = []
    for path in sorted(BUNDLE.rglob("*.json")):
        if vsan_observer.detect(path.read_bytes()[:65536], path.name):
            rows += rows_of(vsan_observer, path, TABLE)
    return rows


@pytest.fixture(scope="module")
def capture_rows():
    return rows_of(vsan_observer, CAPTURE, TABLE)


def test_raw_and_bundle_agree_wherever_both_have_a_point(bundle_rows, capture_rows):
    def key(r):
        return (r.entity_type, r.host, r.entity, r.metric, r.sampled_at)

    raw = {key(r): r.value for r in capture_rows}
    both = [(k, v) for k, v in ((key(r), r.value) for r in bundle_rows) if k in raw]
    assert len(both) > 300
    assert all(raw[k] == pytest.approx(v) for k, v in both)


def test_archive_member_path_gives_group_and_host():
    # GIVEN a member of a vsan-observer tar.gz as the loader names it
    path = BUNDLE / "pcpu" / "pcpu-esx02.lab.local.json"
    logical = "/x/vsan-observer-2024.tar.gz!/jsonstats/pcpu/pcpu-esx02.lab.local.json"
    rows = parse_bytes(vsan_observer, path.read_bytes(), logical).tables[TABLE]
    assert {(r.stats_group, r.entity_type, r.host) for r in rows} == {("pcpu", "pcpu", ESX02)}
    assert _series(rows, "pcpu", ESX02, "used_pct", "1") == [(T1, 10), (T2, 12), (T3, 14)]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("misc/timerange.json", id="no-series"),
        pytest.param("mem/heaps-esx01.lab.local.json", id="values-only"),
    ],
)
def test_bundle_files_without_series_are_not_claimed(name):
    data = (BUNDLE / name).read_bytes()
    assert not vsan_observer.detect(data[:65536], Path(name).name)


def test_detect_claims_no_other_real_sample():
    for path in sorted(SAMPLES.rglob("*")):
        if path.is_file() and path.name != "PROVENANCE.md":
            assert not vsan_observer.detect(path.read_bytes()[:65536], path.name), path


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
