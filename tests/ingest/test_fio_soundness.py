"""Impossible values are never a result, a cut report is never a whole one, and a file without
a result says why (issue 15).

fio 3.x files are real outputs of Debian's fio 3.33 made in a tmp dir, then altered where a
real fio 2.1 / a corrupt copy differs; the fio 2.1 overflow report is written by hand from
fio 2.1's stat.c layout (docs/FORMATS.md 1.7).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.parsers import fio
from ingest.parsers._common import load_json
from ingest.parsers.fio.records import FioInterval
from ingest.parsers.fio.soundness import _may_hold_unsound, unsound
from ingest.records import ParseError, RunState
from ingest.sources import source_for
from tests.conftest import SAMPLES
from tests.ingest.conftest import parse_bytes, rejection

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="Debian's fio is not installed")


def fio_output(tmp_path: Path, *args: str) -> str:
    command = ["fio", f"--filename={tmp_path / 'data'}", "--size=4m", "--ioengine=psync", *args]
    return subprocess.run(command, capture_output=True, check=True, text=True).stdout


def job_args(fmt: str) -> list[str]:
    """Two jobs in two groups (stonewall), so a cut can fall between whole and unfinished."""
    return [
        f"--output-format={fmt}",
        "--name=reader",
        "--rw=randread",
        "--bs=4k",
        "--name=writer",
        "--stonewall",
        "--rw=randwrite",
        "--bs=8k",
    ]


def by_direction(parsed):
    return {(d.job_index, d.direction): d for d in parsed.tables["fio_job_directions"]}


# -------------------------------------------------------------- fio 2.1 overflowed latency

FIO21_OVERFLOW = """\
seqwrite: (g=0): rw=write, bs=1M-1M/1M-1M/1M-1M, ioengine=libaio, iodepth=8
fio-2.1.3
Starting 1 process

seqwrite: (groupid=0, jobs=1): err= 0: pid=777: Wed Jan  8 12:00:00 2014
  write: io=15360MB, bw=524288KB/s, iops=512, runt= 30000msec
    slat (usec): min=20, max=800, avg=35.10, stdev=10.20
    clat (msec): min=2, max=60, avg=15.50, stdev= 3.20
     lat (msec): min=756523K, max=756551K, avg=756537530.85, stdev=8000.00
    clat percentiles (msec):
     |  1.00th=[   10],  5.00th=[   12], 10.00th=[   13], 20.00th=[   14],
     | 30.00th=[   15], 40.00th=[   15], 50.00th=[   16], 60.00th=[   16],
     | 70.00th=[   17], 80.00th=[   18], 90.00th=[   19], 95.00th=[   21],
     | 99.00th=[   26], 99.50th=[   29], 99.90th=[   41], 99.95th=[   50],
     | 99.99th=[   60]
    bw (KB  /s): min=480000, max=560000, per=100.00%, avg=524000.00, stdev=9000.00
  cpu          : usr=1.50%, sys=4.00%, ctx=30000, majf=0, minf=30
  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=100.0%, 16=0.0%, 32=0.0%, >=64=0.0%
     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
     complete  : 0=0.0%, 4=100.0%, 8=0.1%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
     issued    : total=r=0/w=15360/d=0, short=r=0/w=0/d=0

Run status group 0 (all jobs):
  WRITE: io=15360MB, aggrb=524288KB/s, minb=524288KB/s, maxb=524288KB/s, mint=30000msec, \
maxt=30000msec
"""


def test_fio21_overflowed_latency_is_null_with_reason_and_throughput_kept():
    parsed = parse_bytes(fio, FIO21_OVERFLOW.encode(), "/drop/fio21.txt")
    (row,) = parsed.tables["fio_job_directions"]
    # Sound: kept as printed.
    assert (row.iops, row.bw_bytes_per_s, row.total_ios) == (512, 524288 * 1024, 15360)
    assert (row.clat_mean_ns, row.clat_max_ns) == (15.5e6, 60e6)
    # `min=756523K` msec is 8.76 days in a 30 s job: the whole lat spread is no measurement.
    assert (row.lat_min_ns, row.lat_max_ns, row.lat_mean_ns, row.lat_stddev_ns) == (None,) * 4
    assert row.unsound_reason == (
        "lat min_ns = 756523 s is longer than the job ran (30000 ms): set to NULL"
    )
    assert any("lat min_ns = 756523 s" in note for note in parsed.notes)
    assert parsed.tables["fio_jobs"][0].block_size_bytes == 2**20
    assert parsed.no_result_reason is None


# -------------------------------------------------------------- NaN / Infinity / past 2^63


@pytest.fixture(scope="module")
def fio_json(tmp_path_factory) -> str:
    if shutil.which("fio") is None:
        pytest.skip("Debian's fio is not installed")
    tmp = tmp_path_factory.mktemp("fio")
    return fio_output(tmp, "--name=j", "--rw=randread", "--bs=4k", "--output-format=json")


def replace_in(text: str, section: str, key: str, value: str) -> str:
    """`text` with `key` of the first `section` object set to `value` (as written)."""
    start = text.index(f'"{section}" : {{')
    found = re.compile(rf'("{key}" : )[^,\n]+').search(text, start)
    return text[: found.start(1)] + found[1] + value + text[found.end() :]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("NaN", "lat mean_ns = nan is NaN"),
        ("Infinity", "lat mean_ns = inf is Infinity"),
        ("-1.5", "lat mean_ns = -1.5 is negative"),
        ("18446744073709551615", "lat mean_ns = 1.8446744073709552e+19 is past 2^63"),
    ],
)
def test_json_unsound_latency_is_null_with_reason(fio_json, value, reason):
    text = replace_in(fio_json, "lat_ns", "mean", value)
    parsed = parse_bytes(fio, text.encode(), "/drop/j.json")
    read = by_direction(parsed)[(0, "read")]
    assert read.lat_mean_ns is None and read.lat_min_ns is None
    assert read.unsound_reason.startswith(reason)
    assert read.unsound_reason.endswith(": set to NULL")
    sound = by_direction(parse_bytes(fio, fio_json.encode(), "/drop/ok.json"))[(0, "read")]
    assert read.iops == sound.iops > 0
    assert read.clat_mean_ns == sound.clat_mean_ns > 0
    assert sound.unsound_reason is None


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-5.0"])
def test_json_unsound_iops_rejects_the_file_with_where(fio_json, value):
    text = replace_in(fio_json, "read", "iops", value)
    error = rejection(fio, text.encode(), source_for("/drop/j.json", text.encode()))
    assert error.location == "run 0, job 0 ('j'), read"
    assert error.reason.startswith(f"iops = {float(value)} is ")


def test_terse_nan_latency_is_null(tmp_path):
    if shutil.which("fio") is None:
        pytest.skip("Debian's fio is not installed")
    line = fio_output(tmp_path, "--name=t", "--rw=randread", "--bs=4k", "--minimal").strip()
    fields = line.split(";")
    fields[39] = "nan"  # read lat mean (usec): v3 field 40, 1-based (FORMATS 1.6)
    parsed = parse_bytes(fio, (";".join(fields) + "\n").encode(), "/drop/t.txt")
    read = by_direction(parsed)[(0, "read")]
    assert read.lat_mean_ns is None
    assert read.unsound_reason == "lat mean_ns = nan is NaN: set to NULL"
    assert read.iops == int(fields[7])


@pytest.mark.parametrize(
    ("text", "location", "reason"),
    [
        ('{"a": 1,\n "b": NaN}', "line 2, column 7", "NaN is not a number"),
        ('{"s": "NaN", "b": [1, -Infinity]}', "line 1, column 23", "-Infinity is not a number"),
        ('{"b": 99999999999999999999}', "line 1, column 7", "99999999999999999999 is past 2^63"),
        ('{"b": 1e999}', "line 1, column 7", "1e999 overflows a double"),
    ],
)
def test_load_json_rejects_what_is_no_number(text, location, reason):
    with pytest.raises(ParseError) as caught:
        load_json(text, source_for("/drop/stats.json", text.encode()))
    assert caught.value.location == location
    assert caught.value.reason.startswith(reason)


STATUS_DUMPS = SAMPLES / "fio" / "generated-locally" / "fio-3.33__json-status-interval-1s.json"


@pytest.mark.parametrize(
    ("written", "replaced", "location", "reason"),
    [
        # the first status dump: its intervals are the first rows
        (
            '"io_bytes" : 34889728',
            '"io_bytes" : 18446744073709551615',
            "fio_intervals row 1",
            "io_bytes = 18446744073709551616 is past 2^63 (an overflowed counter)",
        ),
        (
            '"mean" : 86343.685761',
            '"mean" : NaN',
            "fio_intervals row 1",
            "lat_mean_ns = nan is NaN",
        ),
        # the final report's second job
        ('"usr_cpu" : 1.550000', '"usr_cpu" : NaN', "fio_jobs row 2", "usr_cpu_pct = nan is NaN"),
    ],
)
def test_json_unsound_value_outside_the_directions_rejects_the_file_with_its_row(
    written, replaced, location, reason
):
    text = STATUS_DUMPS.read_text()
    assert text.count(written) == 1
    data = text.replace(written, replaced).encode()
    error = rejection(fio, data, source_for("/drop/dumps.json", data))
    assert (error.location, error.reason) == (location, reason)


_NUMBER = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    # the values refused, and the edges: 2^63 - 1 passes, 2^63 and the unsigned wraps do not
    st.sampled_from([math.nan, math.inf, -math.inf, 2**63 - 1, 2**63, 2**64 - 1, 2**64]),
    st.sampled_from([-(2**63) - 1, 2.0**63, -(2.0**63), 1e308]),
)


@given(st.lists(st.tuples(*[_NUMBER] * 8, st.sampled_from(["read", 5, 2.5, None])), max_size=6))
def test_the_screen_of_a_table_never_passes_a_value_the_row_by_row_check_refuses(values):
    # the screen of `reject_unsound_values` (a column at a time) against `unsound` per value
    rows = [
        FioInterval(0, 0, i, v[8], *v[:8])  # type: ignore[arg-type]
        for i, v in enumerate(values)
    ]
    refused = any(
        isinstance(value, int | float) and unsound(value) not in (None, "negative")
        for row in rows
        for value in (getattr(row, c) for c in row.__slots__)
    )
    assert _may_hold_unsound(rows) or not refused


# -------------------------------------------------------------- a report cut at any byte


@needs_fio
def test_report_cut_at_any_byte_is_never_a_whole_result(tmp_path):
    text = fio_output(tmp_path, *job_args("normal"), "--runtime=1")
    full = parse_bytes(fio, text.encode(), "/drop/full.txt")
    whole = by_direction(full)
    assert [j.state for j in full.tables["fio_jobs"]] == [RunState.ok, RunState.ok]
    group_line = {g: text.index(f"Run status group {g} (all jobs):") for g in (0, 1)}
    outcomes = {"rejected": 0, "no result": 0, "result": 0}
    for cut in range(0, len(text), 97):
        data = text[:cut].encode()
        try:
            parsed = parse_bytes(fio, data, "/drop/cut.txt")
        except ParseError as error:
            assert error.path == "/drop/cut.txt"
            outcomes["rejected"] += 1
            continue
        ok = [j for j in parsed.tables["fio_jobs"] if j.state == RunState.ok]
        for job in ok:  # whole only when fio's group line made it into the cut file
            assert cut >= group_line[job.groupid] + len("Run status group 0 (all jobs):")
            for (index, name), row in by_direction(parsed).items():
                if index == job.job_index:
                    assert (row.iops, row.lat_mean_ns) == (
                        whole[(index, name)].iops,
                        whole[(index, name)].lat_mean_ns,
                    )
        for job in parsed.tables["fio_jobs"]:
            if job.state != RunState.ok:
                assert job.state == RunState.unfinished
                assert "the output was cut" in job.state_reason
        if ok:
            outcomes["result"] += 1
        else:
            assert parsed.no_result_reason.startswith("no fio result: ")
            outcomes["no result"] += 1
    assert all(outcomes.values()), outcomes  # the cuts reached each of the three cases


# -------------------------------------------------------------- nothing silent


@pytest.mark.parametrize(
    ("sample", "reason"),
    [
        (
            "fioplot__fio-3.33__stderr_prefix_job_error22__write-64-1.json",
            "no fio result: 1 of 1 job(s) error; job '1m': fio reported error 22 for this job: "
            "func=total_file_size, error=Invalid argument (line 3, file:filesetup.c:1155)",
        ),
        (
            "fioplot__fio-3.34__sigint_prefix__randread-1-1.json",
            "no fio result: 1 of 1 job(s) unfinished; job 'FIOJOB': fio was interrupted: "
            "fio: terminating on signal 2",
        ),
    ],
)
def test_file_without_result_says_why(sample, reason):
    path = SAMPLES / "fio" / sample
    data = path.read_bytes()
    assert fio.parse(data, source_for(str(path), data)).no_result_reason == reason


def test_job_without_direction_rows_says_why():
    # The job header and its cpu line but no read/write line: fio printed no totals.
    text = re.sub(
        r"(?ms)^  mixed: io=.*?(?=^  cpu)", "", FIO21_OVERFLOW.replace("write: io", "mixed: io")
    )
    parsed = parse_bytes(fio, text.encode(), "/drop/nodirs.txt")
    assert parsed.tables["fio_job_directions"] == []
    assert parsed.no_result_reason == (
        "1 job(s) but no read/write/trim/mixed totals in any of them"
    )


@needs_fio
def test_terse_file_cut_in_its_last_record_keeps_the_whole_records(tmp_path):
    text = fio_output(tmp_path, *job_args("terse"), "--runtime=1")
    first, second = text.splitlines()[:2]
    whole = parse_bytes(fio, text.encode(), "/drop/terse.txt")
    # Every 97th cut inside the second record, once its `3;fio-3.33;writer` start is there.
    start = len(first) + 1 + len(";".join(second.split(";")[:3]))
    cuts = range(start, len(text) - 1, 97)
    assert len(cuts) > 5
    for cut in cuts:
        parsed = parse_bytes(fio, text[:cut].encode(), "/drop/terse-cut.txt")
        assert [j.jobname for j in parsed.tables["fio_jobs"]] == ["reader"]
        assert parsed.notes[0] == "line 2: the last terse record is cut (no line end): dropped"
        assert by_direction(parsed)[(0, "read")] == by_direction(whole)[(0, "read")]
    error = rejection(fio, first[:200].encode(), source_for("/drop/t.txt", first[:200].encode()))
    assert error.reason == "line 1: the last terse record is cut (no line end): dropped"
    assert second.startswith("3;fio-")
