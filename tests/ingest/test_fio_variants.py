"""fio report variants (issue 15): unified `mixed` reporting in the human-readable report, every
printed form of `bs=`, terse lines next to the report, and block size derived for terse-only.

fio 3.x cases are real outputs of Debian's fio 3.33 made in a tmp dir; fio 2.x reports are
written by hand from fio 2.1's stat.c layout (docs/FORMATS.md 1.7), since no fio 2.x is
installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ingest.parsers import fio
from ingest.parsers.fio.json_output import time_option_ms
from ingest.records import RunState
from tests.ingest.conftest import cases, parse_bytes

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="Debian's fio is not installed")


def run_fio(tmp_path: Path, *args: str) -> bytes:
    """stdout of a small real fio run on a 4 MiB file in `tmp_path`."""
    command = [
        "fio",
        "--name=job1",
        f"--filename={tmp_path / 'data'}",
        "--size=4m",
        "--runtime=1",
        "--ioengine=psync",
        *args,
    ]
    return subprocess.run(command, capture_output=True, check=True).stdout


def only(parsed, table):
    (row,) = parsed.tables[table]
    return row


# -------------------------------------------------------------- unified (mixed) reporting


@needs_fio
def test_fio3_normal_unified_report_reads_mixed_like_its_json(tmp_path):
    # One run, both forms: the report's `mixed:` line must give what the JSON `mixed` gives.
    out = run_fio(
        tmp_path,
        "--rw=randrw",
        "--bs=4k",
        "--unified_rw_reporting=1",
        "--output-format=normal,json",
    )
    text = out.decode()
    # fio writes the definition lines, then the JSON document, then the report.
    json_start, json_end = text.index("\n{") + 1, text.index("\n}\n") + 3
    report_text = text[:json_start] + text[json_end:]
    report = parse_bytes(fio, report_text.encode(), "/drop/normal.txt")
    exact = parse_bytes(fio, text[json_start:json_end].encode(), "/drop/out.json")
    got, want = only(report, "fio_job_directions"), only(exact, "fio_job_directions")
    assert got.direction == want.direction == "mixed"
    assert got.iops == pytest.approx(want.iops, rel=0.006)  # `IOPS=42.7k`: 3 digits
    assert got.bw_bytes_per_s == pytest.approx(want.bw_bytes_per_s, rel=0.006)
    assert got.clat_mean_ns == pytest.approx(want.clat_mean_ns, rel=0.001)
    assert got.total_ios == want.total_ios == 1024  # 4 MiB in 4 KiB I/Os
    assert only(report, "fio_jobs").state == RunState.ok
    assert report.no_result_reason is None


FIO2_MIXED = """\
randrw-mixed: (g=0): rw=randrw, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=32
fio-2.1.11
Starting 1 process

randrw-mixed: (groupid=0, jobs=1): err= 0: pid=4242: Tue Mar  3 10:00:00 2015
  mixed: io=1024.0MB, bw=34952KB/s, iops=8738, runt= 30000msec
    slat (usec): min=2, max=120, avg= 4.12, stdev= 1.30
    clat (usec): min=150, max=9000, avg=3655.20, stdev=400.10
     lat (usec): min=155, max=9004, avg=3659.50, stdev=400.20
    clat percentiles (usec):
     |  1.00th=[ 2800],  5.00th=[ 3024], 10.00th=[ 3152], 20.00th=[ 3344],
     | 30.00th=[ 3440], 40.00th=[ 3536], 50.00th=[ 3632], 60.00th=[ 3728],
     | 70.00th=[ 3824], 80.00th=[ 3952], 90.00th=[ 4128], 95.00th=[ 4256],
     | 99.00th=[ 4640], 99.50th=[ 4832], 99.90th=[ 5600], 99.95th=[ 6048],
     | 99.99th=[ 8032]
    bw (KB  /s): min=30000, max=38000, per=100.00%, avg=34950.12, stdev=900.50
    lat (usec) : 250=0.01%, 500=0.02%, 750=0.01%, 1000=0.01%
    lat (msec) : 2=0.05%, 4=85.10%, 10=14.80%
  cpu          : usr=2.50%, sys=8.00%, ctx=200000, majf=0, minf=40
  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=0.1%, 32=100.0%, >=64=0.0%
     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.1%, 64=0.0%, >=64=0.0%
     issued    : total=r=262144/w=0/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0
     latency   : target=0, window=0, percentile=100.00%, depth=32

Run status group 0 (all jobs):
  MIXED: io=1024.0MB, aggrb=34952KB/s, minb=34952KB/s, maxb=34952KB/s, mint=30000msec, \
maxt=30000msec

Disk stats (read/write):
  sda: ios=131072/131072, merge=0/0, ticks=470000/480000, in_queue=950000, util=99.90%
"""


def test_fio2_normal_unified_report_reads_mixed_block_size_and_issued_counts():
    parsed = parse_bytes(fio, FIO2_MIXED.encode(), "/drop/fio2-mixed.txt")
    row = only(parsed, "fio_job_directions")
    assert row.direction == "mixed"
    assert row.iops == 8738
    assert row.bw_bytes_per_s == 34952 * 1024  # fio 2.x `KB` is KiB
    assert row.io_bytes == 1024 * 1024**2
    assert (row.total_ios, row.is_total_ios_derived, row.short_ios, row.drop_ios) == (
        262144,
        False,
        0,
        0,
    )
    assert (row.lat_mean_ns, row.clat_max_ns, row.slat_min_ns) == (3659500, 9000000, 2000)
    assert row.bw_mean_kib_per_s == pytest.approx(34950.12)
    assert row.unsound_reason is None
    job = only(parsed, "fio_jobs")
    assert (job.block_size_bytes, job.iodepth, job.rw, job.state) == (
        4096,
        32,
        "randrw",
        RunState.ok,
    )
    assert job.options_json["bs"] == "4K"
    assert parsed.no_result_reason is None


# -------------------------------------------------------------- every printed form of bs=


@pytest.mark.parametrize(
    ("definition", "block_size"),
    cases(
        ("fio2-4k", "rw=randread, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=32", 4096),
        ("fio2-1m-write", "rw=write, bs=1M-1M/1M-1M/1M-1M, ioengine=libaio, iodepth=8", 2**20),
        ("fio2-512k", "rw=read, bs=512K-512K/512K-512K/512K-512K, ioengine=sync, iodepth=1", 2**19),
        ("fio2.0-no-trim", "rw=randwrite, bs=8K-8K/8K-8K, ioengine=libaio, iodepth=4", 8192),
        ("fio2-bytes", "rw=read, bs=4096B-4096B/4096B-4096B/4096B-4096B, ioengine=sync", 4096),
        (
            "fio3-decimal",
            "rw=read, bs=(R) 16.0KiB-16.0KiB, (W) 16.0KiB-16.0KiB, (T) 16.0KiB-16.0KiB, "
            "ioengine=psync, iodepth=1",
            16384,
        ),
        # A write job uses the write size, not the read size fio prints first.
        (
            "fio3-write-own-size",
            "rw=write, bs=(R) 4096B-4096B, (W) 64.0KiB-64.0KiB, (T) 4096B-4096B, "
            "ioengine=psync, iodepth=1",
            65536,
        ),
        ("fio2-write-own-size", "rw=randwrite, bs=4K-4K/64K-64K/4K-4K, ioengine=libaio", 65536),
        # Several sizes in one job (bsrange, a mix with different sizes) have no one size.
        ("fio2-bsrange", "rw=randread, bs=4K-64K/4K-64K/4K-64K, ioengine=libaio, iodepth=1", None),
        (
            "fio3-rw-two-sizes",
            "rw=randrw, bs=(R) 4096B-4096B, (W) 64.0KiB-64.0KiB, (T) 4096B-4096B, ioengine=psync",
            None,
        ),
    ),
)
def test_every_printed_block_size_form(definition, block_size):
    text = FIO2_MIXED.replace(
        "rw=randrw, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=32", definition
    )
    job = only(parse_bytes(fio, text.encode(), "/drop/bs.txt"), "fio_jobs")
    assert job.block_size_bytes == block_size
    assert job.is_block_size_derived is False


# -------------------------------------------------------------- terse next to the report


@needs_fio
def test_terse_with_report_takes_options_from_the_report(tmp_path):
    out = run_fio(
        tmp_path, "--rw=randread", "--bs=16k", "--iodepth=4", "--output-format=normal,terse"
    )
    parsed = parse_bytes(fio, out, "/drop/normal-terse.txt")
    job = only(parsed, "fio_jobs")
    assert (job.block_size_bytes, job.iodepth, job.rw, job.read_pct, job.random_pct) == (
        16384,
        4,
        "randread",
        100,
        100,
    )
    assert job.is_block_size_derived is False
    assert job.options_json["bs"] == "16.0KiB"
    assert not any("not in the file" in note for note in parsed.notes)
    # Numbers still come from the terse record: its integer IOPS field, not the report's `k`.
    terse_line = next(ln for ln in out.decode().splitlines() if ln.startswith("3;fio-"))
    read = next(d for d in parsed.tables["fio_job_directions"] if d.direction == "read")
    assert read.iops == int(terse_line.split(";")[7])
    assert read.io_bytes == 4 * 1024**2


# -------------------------------------------------------------- terse only: derived block size


@needs_fio
@pytest.mark.parametrize("bs", [4096, 8192, 65536])
def test_terse_only_derives_power_of_two_block_size(tmp_path, bs):
    out = run_fio(tmp_path, "--rw=randrw", f"--bs={bs}", "--minimal")
    parsed = parse_bytes(fio, out, "/drop/terse.txt")
    job = only(parsed, "fio_jobs")
    assert (job.block_size_bytes, job.is_block_size_derived) == (bs, True)
    assert job.iodepth is None and job.options_json is None
    assert f"block size derived from bytes per I/O for 1 job(s): [{bs}] bytes" in parsed.notes


@needs_fio
def test_terse_only_mixed_sizes_derive_nothing(tmp_path):
    # 4k and 12k I/Os: bytes per I/O is no single power of two.
    out = run_fio(tmp_path, "--rw=randread", "--bssplit=4k/50:12k/50", "--minimal")
    job = only(parse_bytes(fio, out, "/drop/terse-split.txt"), "fio_jobs")
    assert (job.block_size_bytes, job.is_block_size_derived) == (None, False)


# ------------------------------------------- short runs: final report with eta unknown (INT_MAX)

ETA_UNKNOWN = 2147483647


def run_fio_json(tmp_path: Path, *args: str) -> tuple[bytes, dict]:
    """stdout of a real fio JSON run on `tmp_path/f`, and its job as fio printed it."""
    command = ["fio", "--name=j", f"--filename={tmp_path / 'f'}", "--output-format=json", *args]
    out = subprocess.run(command, capture_output=True, check=True).stdout
    text = out.decode()
    # the last document (fio prints each with `{` in column 0): the final report
    return out, json.loads(text[text.rfind("\n{") + 1 :])["jobs"][0]


@needs_fio
@pytest.mark.parametrize(
    ("args", "bytes_done"),
    [
        pytest.param(("--size=4m", "--bs=4k", "--rw=randread"), 4 << 20, id="size"),
        pytest.param(("--size=4m", "--io_size=2m", "--bs=4k", "--rw=read"), 2 << 20, id="io_size"),
    ],
)
def test_short_run_with_eta_unknown_is_finished_by_its_size(tmp_path, args, bytes_done):
    # Debian's fio 3.33 ends a run this short with eta INT_MAX, not 0, in its final report.
    out, printed = run_fio_json(tmp_path, *args)
    assert printed["eta"] == ETA_UNKNOWN
    parsed = parse_bytes(fio, out, "/drop/short.json")
    job = only(parsed, "fio_jobs")
    assert (job.state, job.state_reason, parsed.no_result_reason) == (RunState.ok, None, None)
    read = next(d for d in parsed.tables["fio_job_directions"] if d.direction == "read")
    assert read.iops == printed["read"]["iops"]
    assert (read.io_bytes, read.total_ios) == (bytes_done, bytes_done // 4096)
    assert any("eta unknown (INT_MAX)" in note for note in parsed.notes)


@needs_fio
def test_short_unified_run_with_eta_unknown_is_finished_by_its_mixed_bytes(tmp_path):
    # unified_rw_reporting: only `mixed` carries the job's 4 MiB of reads and writes
    out, printed = run_fio_json(
        tmp_path, "--size=4m", "--bs=4k", "--rw=randrw", "--unified_rw_reporting=1"
    )
    assert printed["eta"] == ETA_UNKNOWN and printed["mixed"]["io_bytes"] == 4 << 20
    parsed = parse_bytes(fio, out, "/drop/short_unified.json")
    assert only(parsed, "fio_jobs").state == RunState.ok
    (mixed,) = parsed.tables["fio_job_directions"]
    assert (mixed.direction, mixed.iops) == ("mixed", printed["mixed"]["iops"])


@needs_fio
def test_short_time_based_run_with_eta_unknown_is_finished_by_its_runtime(tmp_path):
    # --time_based is not among the options fio prints: the job loops over its 1 MiB (more
    # bytes than its size) and is finished because it ran its 300 ms.
    out, printed = run_fio_json(
        tmp_path, "--size=1m", "--bs=4k", "--rw=randrw", "--runtime=300ms", "--time_based"
    )
    assert printed["eta"] == ETA_UNKNOWN and "time_based" not in printed["job options"]
    assert printed["read"]["io_bytes"] + printed["write"]["io_bytes"] > 1 << 20
    parsed = parse_bytes(fio, out, "/drop/short_time_based.json")
    assert only(parsed, "fio_jobs").state == RunState.ok
    iops = {d.direction: d.iops for d in parsed.tables["fio_job_directions"]}
    assert (iops["read"], iops["write"]) == (printed["read"]["iops"], printed["write"]["iops"])


@needs_fio
def test_status_interval_run_cut_after_its_first_dump_stays_unfinished(tmp_path):
    out, _ = run_fio_json(
        tmp_path,
        "--size=4m",
        "--bs=4k",
        "--rw=randread",
        "--status-interval=1",
        "--runtime=3",
        "--time_based",
    )
    text = out.decode()
    first = text[: text.index("\n{", 1) + 1]  # the first dump, as if fio was killed after it
    dump = json.loads(first)["jobs"][0]
    # eta unknown, its bytes past its size, but not its 3 s runtime
    assert dump["eta"] == ETA_UNKNOWN and dump["read"]["io_bytes"] > 4 << 20
    assert dump["read"]["runtime"] < 3000
    parsed = parse_bytes(fio, first.encode(), "/drop/first_dump.json")
    job = only(parsed, "fio_jobs")
    assert job.state == RunState.unfinished
    assert parsed.no_result_reason.startswith("no fio result: 1 of 1 job(s) unfinished")
    # the whole stream is finished as before (a document with eta == 0)
    assert only(parse_bytes(fio, out, "/drop/whole.json"), "fio_jobs").state == RunState.ok


@pytest.mark.parametrize(
    ("printed", "ms"),
    [("3", 3000.0), ("300ms", 300.0), ("1m", 60_000.0), ("500us", 0.5), ("2h", 7_200_000.0)],
)
def test_fio_time_option_in_ms(printed, ms):
    assert time_option_ms(printed) == ms


def test_fio_time_option_not_a_time():
    assert (time_option_ms("3 parsecs"), time_option_ms(None)) == (None, None)


@needs_fio
def test_status_interval_run_takes_the_last_eta_zero_document_as_final(tmp_path):
    # Debian's fio 3.33 writes a status dump with eta == 0 just before its final report (also
    # eta == 0); the dump misses the run's last I/Os (about 5,790 of 6,000 here). The result is
    # the final report, and the intervals add up to it.
    command = [
        "fio", "--name=j", f"--filename={tmp_path / 'f'}", "--size=4m", "--bs=4k",
        "--rw=randread", "--status-interval=1", "--runtime=3", "--time_based",
        "--rate_iops=2000", "--output-format=json",
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, check=True).stdout
    text, decoder, documents, pos = out.decode(), json.JSONDecoder(), [], 0
    while (start := text.find("{", pos)) != -1:
        document, pos = decoder.raw_decode(text, start)
        documents.append(document["jobs"][0])
    finals = [d["read"]["total_ios"] for d in documents if d["eta"] == 0]
    assert len(finals) >= 2 and finals[0] < finals[-1]
    parsed = parse_bytes(fio, out, "/drop/status_interval.json")
    (read,) = [d for d in parsed.tables["fio_job_directions"] if d.direction == "read"]
    assert read.total_ios == finals[-1]
    assert read.iops == documents[-1]["read"]["iops"]
    intervals = [i for i in parsed.tables["fio_intervals"] if i.direction == "read"]
    assert sum(i.ios for i in intervals) == finals[-1]


@needs_fio
def test_status_interval_job_with_startdelay_keeps_every_interval(tmp_path):
    # job b starts 1 s late: before it starts fio prints runtime 0 but job_runtime ~1000 and
    # elapsed 1; its clock must not run until it does I/O, or the I/O of its first interval
    # lands on a negative span and has no rate
    command = ["fio", "--status-interval=1", "--output-format=json"]
    for name, extra in (("a", ["--runtime=3"]), ("b", ["--runtime=2", "--startdelay=1"])):
        command += [
            f"--name={name}", f"--filename={tmp_path / name}", "--size=4m", "--bs=4k",
            "--rw=randread", "--time_based", "--rate_iops=1000", *extra,
        ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, check=True).stdout
    parsed = parse_bytes(fio, out, "/drop/startdelay.json")
    final = {d.job_index: d for d in parsed.tables["fio_job_directions"] if d.direction == "read"}
    delayed = [i for i in parsed.tables["fio_intervals"] if i.job_index == 1 and i.ios]
    assert sum(i.ios for i in delayed) == final[1].total_ios > 0
    assert all(i.interval_ms > 0 and i.iops is not None for i in delayed)
    # each interval's rate is the job's (about 1,000 IOPS), not a quarter of it
    assert all(500 < i.iops < 1500 for i in delayed), [i.iops for i in delayed]
