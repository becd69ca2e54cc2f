r"""esxtop sample times that step backwards or repeat: no invented days, no sample counted twice.

Cases are the real captures in ../shared/samples/esxtop with their rows reordered, repeated or
their time-only stamps shifted at run time; expected times and values are read from the files.
The captures as written (in order, Excel stamps sharing a minute: all reliable) are golden cases
(tests/ingest/golden/esxtop).
"""

from __future__ import annotations

import datetime as dt
import itertools

from ingest.parsers import esxtop
from ingest.records import Parsed
from tests.conftest import SAMPLES
from tests.ingest.conftest import parse_bytes

ESXTOP = SAMPLES / "esxtop"
BIG = (ESXTOP / "rach-sharp_esxtopd__esxtop-data.csv").read_bytes()
CR_ONLY = (ESXTOP / "gsliu_VisualEsxtopOnline__origincsv-cr-only-lineends.csv").read_bytes()
TOTAL_UTIL = r"\Physical Cpu(_Total)\% Util Time"
UTC = dt.UTC
EPOCH = dt.date(1970, 1, 1)


def _capture(parsed: Parsed) -> esxtop.EsxtopCapture:
    (capture,) = parsed.tables["esxtop_captures"]
    return capture


def _series(parsed: Parsed) -> list[float | None]:
    counters = parsed.tables["esxtop_counters"].to_pylist()
    (counter_id,) = [c["counter_id"] for c in counters if c["header"].endswith(TOTAL_UTIL)]
    rows = [r for r in parsed.tables["esxtop_samples"].to_pylist() if r["counter_id"] == counter_id]
    return [r["value"] for r in sorted(rows, key=lambda r: r["sample_index"])]


def _cr_rows() -> tuple[bytes, list[bytes]]:
    header, *rows = CR_ONLY.rstrip(b"\r").split(b"\r")
    return header, rows


def _clock(row: bytes) -> dt.time:
    return dt.time.fromisoformat(row.split(b",")[0].decode())


def _cr_capture(header: bytes, rows: list[bytes]) -> bytes:
    return b"\r".join([header, *rows]) + b"\r"


# ---------------------------------------------------------------- time-only stamps


def test_time_only_capture_stepping_back_by_minutes_adds_no_day():
    # a re-save with its second half first: 22:46:55 .. 22:51:28, then 22:42:26 .. 22:46:49
    header, rows = _cr_rows()
    data = _cr_capture(header, rows[50:] + rows[:50])
    parsed = parse_bytes(esxtop, data, "/drop/resaved.csv")
    capture = _capture(parsed)
    times = parsed.tables["esxtop_sample_times"]
    assert [t.sampled_at.time() for t in times] == [_clock(r) for r in rows[50:] + rows[:50]]
    assert {t.sampled_at.date() for t in times} == {EPOCH}
    assert [t.line_number for t in times] == list(range(2, 102))
    assert (capture.sample_count, capture.has_dates, capture.times_reliable) == (100, False, False)
    assert (
        capture.times_note
        == "1 backward steps, the first at line 52 ('22:42:26' after '22:51:28'): "
        "samples kept in file order, no day added"
    )
    assert capture.interval_s is None
    assert (capture.first_sampled_at, capture.last_sampled_at) == (
        dt.datetime(1970, 1, 1, 22, 42, 26, tzinfo=UTC),
        dt.datetime(1970, 1, 1, 22, 51, 28, tzinfo=UTC),
    )
    assert (
        "sample times unreliable: 1 backward steps, the first at line 52 ('22:42:26' after "
        "'22:51:28'): samples kept in file order, no day added; the capture's time window "
        "is doubtful"
    ) in parsed.notes


def test_time_only_capture_sorted_by_value_stays_within_one_day():
    # sorted by `_Total % Util Time` (a spreadsheet sort): dozens of backward steps, once
    # read as dozens of midnights
    header, rows = _cr_rows()
    by_value = sorted(rows, key=lambda r: float(r.split(b",")[6]))
    backward = sum(_clock(b) < _clock(a) for a, b in itertools.pairwise(by_value))
    assert backward > 30
    parsed = parse_bytes(esxtop, _cr_capture(header, by_value), "/drop/sorted.csv")
    capture = _capture(parsed)
    assert {t.sampled_at.date() for t in parsed.tables["esxtop_sample_times"]} == {EPOCH}
    assert capture.times_reliable is False
    assert capture.times_note.startswith(f"{backward} backward steps, the first at line ")
    assert _series(parsed) == sorted(float(r.split(b",")[6]) for r in rows)


def test_time_only_capture_crossing_midnight_adds_one_day():
    # the real stamps moved 77 minutes later: 23:59:26 .. 00:08:28, 5-6 s apart
    header, rows = _cr_rows()
    shift = dt.timedelta(minutes=77)

    def later(row: bytes) -> bytes:
        stamp, rest = row.split(b",", 1)
        moved = dt.datetime.combine(EPOCH, dt.time.fromisoformat(stamp.decode())) + shift
        return moved.strftime("%H:%M:%S").encode() + b"," + rest

    parsed = parse_bytes(esxtop, _cr_capture(header, [later(r) for r in rows]), "/drop/m.csv")
    capture = _capture(parsed)
    times = [t.sampled_at for t in parsed.tables["esxtop_sample_times"]]
    original = [dt.datetime.combine(EPOCH, _clock(r), tzinfo=UTC) for r in rows]
    assert times == [t + shift for t in original]
    assert times[0] == dt.datetime(1970, 1, 1, 23, 59, 26, tzinfo=UTC)
    assert times[-1] == dt.datetime(1970, 1, 2, 0, 8, 28, tzinfo=UTC)
    assert (capture.times_reliable, capture.times_note) == (True, None)
    assert capture.interval_s == round(542 / 99, 3)  # 22:42:26 .. 22:51:28 over 99 steps


def test_late_to_early_step_far_longer_than_the_interval_is_not_a_midnight():
    header, rows = _cr_rows()
    stamps = [b"23:10:00", b"23:10:05", b"23:10:10", b"00:30:00", b"00:30:05"]
    data = _cr_capture(
        header, [s + b"," + r.split(b",", 1)[1] for s, r in zip(stamps, rows[:5], strict=True)]
    )
    parsed = parse_bytes(esxtop, data, "/drop/gap.csv")
    capture = _capture(parsed)
    times = [t.sampled_at for t in parsed.tables["esxtop_sample_times"]]
    assert {t.date() for t in times} == {EPOCH}
    assert times[3] == dt.datetime(1970, 1, 1, 0, 30, tzinfo=UTC)
    assert capture.times_reliable is False
    assert (
        capture.times_note
        == "1 backward steps, the first at line 5 ('00:30:00' after '23:10:10'): "
        "samples kept in file order, no day added"
    )


# ---------------------------------------------------------------- dated stamps


def test_dated_capture_with_a_row_written_twice_keeps_the_first():
    lines = BIG.split(b"\n")
    data = b"\n".join([*lines[:3], lines[2], *lines[3:]])
    parsed = parse_bytes(esxtop, data, "/drop/twice.csv")
    capture = _capture(parsed)
    times = parsed.tables["esxtop_sample_times"]
    assert [(t.sample_index, t.line_number, t.timestamp_text) for t in times] == [
        (0, 2, "04/24/2018 10:49:12"),
        (1, 3, "04/24/2018 10:49:17"),
        (3, 5, "04/24/2018 10:49:22"),
    ]
    assert _series(parsed) == [8.95, 9.38, 8.48]
    assert (capture.sample_count, capture.cell_count) == (3, 3 * 17_427)
    assert (capture.times_reliable, capture.interval_s) == (False, None)
    assert capture.times_note == (
        "1 samples repeat an earlier sample's time, the first at line 4 "
        "('04/24/2018 10:49:17'): dropped, the first of each kept"
    )
    assert any(n.startswith("sample times unreliable: 1 samples repeat") for n in parsed.notes)


def test_dated_capture_stepping_back_keeps_file_order():
    lines = BIG.split(b"\n")
    data = b"\n".join([lines[0], lines[1], lines[3], lines[2], b""])
    parsed = parse_bytes(esxtop, data, "/drop/swapped.csv")
    capture = _capture(parsed)
    assert _series(parsed) == [8.95, 8.48, 9.38]
    assert capture.sample_count == 3
    assert capture.times_note == (
        "1 backward steps, the first at line 4 ('04/24/2018 10:49:17' after "
        "'04/24/2018 10:49:22'): samples kept in file order, no day added"
    )
    assert capture.last_sampled_at == dt.datetime(2018, 4, 24, 10, 49, 22, tzinfo=UTC)


def test_dated_row_repeated_after_later_rows_is_dropped_not_a_step_back():
    # rows 10:49:12, 10:49:17, 10:49:22, then 10:49:17 again
    lines = BIG.split(b"\n")
    data = b"\n".join([*lines[:4], lines[2], b""])
    parsed = parse_bytes(esxtop, data, "/drop/again.csv")
    capture = _capture(parsed)
    assert _series(parsed) == [8.95, 9.38, 8.48]
    assert [t.line_number for t in parsed.tables["esxtop_sample_times"]] == [2, 3, 4]
    assert capture.times_note == (
        "1 samples repeat an earlier sample's time, the first at line 5 "
        "('04/24/2018 10:49:17'): dropped, the first of each kept"
    )
