"""fio parser: real values read from every real sample in ../shared/samples/fio.

Every expected number below was read from the sample file itself (its line in
the file is given), then converted to the unit the column name promises.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ingest.parsers import fio
from ingest.parsers._common import fio_read_random_pct
from ingest.records import ParseError, RunState
from ingest.sources import source_for
from tests.conftest import SAMPLES, source_of

FIO = SAMPLES / "fio"
LOCAL = FIO / "generated-locally"


def parse_sample(path: Path):
    data, source = source_of(path)
    assert fio.detect(data[:65536], path.name), f"{path.name} not detected as fio"
    return fio.parse(data, source)


def rows(parsed, table):
    return parsed.tables.get(table, [])


def direction(parsed, job_index, name):
    (row,) = [
        d
        for d in rows(parsed, "fio_job_directions")
        if d.job_index == job_index and d.direction == name
    ]
    return row


def percentile(parsed, job_index, name, kind, pct):
    (row,) = [
        p
        for p in rows(parsed, "fio_latency_percentiles")
        if p.job_index == job_index
        and p.direction == name
        and p.latency_kind == kind
        and p.percentile == pct
    ]
    return row.latency_ns


# ----------------------------------------------------------------- JSON 2.x


def test_fio_2_1_json_usec_and_kib_io_bytes():
    parsed = parse_sample(FIO / "pkb__fio-2.1.4__fio-parser-sample-result.json")
    jobs = rows(parsed, "fio_jobs")
    assert [j.groupid for j in jobs] == [0, 1, 2, 3, 4]  # five stonewall groups
    assert jobs[1].jobname == "sequential_read"
    read = direction(parsed, 1, "read")
    # lines 211-218: io_bytes 361984 (KiB in 2.1), bw 129836 KiB/s, iops 253, slat mean 102.47 us
    assert read.io_bytes == 361984 * 1024
    assert read.bw_bytes_per_s == 129836 * 1024
    assert read.iops == 253
    assert read.runtime_ms == 2788
    assert read.slat_mean_ns == pytest.approx(102470.0)
    # fio 2.1 has no total_ios: derived from iops x runtime and flagged
    assert read.is_total_ios_derived and read.total_ios == round(253 * 2.788)
    # no job options in fio 2.1 JSON: the workload is what was measured
    assert jobs[1].rw is None and jobs[1].read_pct == 100 and jobs[0].read_pct == 0
    # the 45 padded "0.00" percentile keys are not percentiles
    assert all(p.percentile > 0 for p in rows(parsed, "fio_latency_percentiles"))


def test_fio_2_18_json_kib_io_bytes_and_usec_percentiles():
    parsed = parse_sample(FIO / "fioplot__fio-2.18__randread-01-64.json")
    read = direction(parsed, 0, "read")
    assert read.io_bytes == 19564 * 1024  # line 33, KiB before fio-2.21
    assert read.total_ios == 4891 and not read.is_total_ios_derived  # line 37
    assert read.iops == pytest.approx(476.798596)
    assert read.clat_mean_ns == pytest.approx(131963.750767 * 1000)  # line 49, usec
    assert percentile(parsed, 0, "read", "clat", 99.0) == 774144 * 1000  # line 64
    (job,) = rows(parsed, "fio_jobs")
    assert job.ended_at.timestamp() == pytest.approx(1492427773.974)  # timestamp_ms, line 4


def test_fio_2_17_duplicate_filename_kept_and_numjobs_group():
    parsed = parse_sample(FIO / "pkb__fio-2.17__group_reporting_numjobs2__pkb-7fb0c9d8-0_fio.json")
    (run,) = rows(parsed, "fio_runs")
    assert run.global_options_json["filename"] == "/dev/disk/by-id/google-pkb-7fb0c9d8-0-data-0-0"
    jobs = rows(parsed, "fio_jobs")
    assert [j.rw for j in jobs] == ["randread", "randwrite"]
    assert [j.block_size_bytes for j in jobs] == [16384, 16384]


# ----------------------------------------------------------------- JSON 3.x


def test_fio_3_14_json_ns_units():
    parsed = parse_sample(FIO / "fioplot__fio-3.14__randread-1-1.json")
    read = direction(parsed, 0, "read")
    assert read.io_bytes == 2139865088  # line 31, bytes in 3.x
    assert read.total_ios == 522428
    assert read.iops == pytest.approx(8706.988217)
    assert read.slat_mean_ns == pytest.approx(8879.958069)  # line 43, ns
    assert read.clat_mean_ns == pytest.approx(103252.531844)
    assert percentile(parsed, 0, "read", "clat", 99.0) == 134144  # line 64
    (job,) = rows(parsed, "fio_jobs")
    assert job.state is RunState.ok and job.rw == "randread" and job.read_pct == 100


def test_fio_3_6_numjobs_without_group_reporting_keeps_every_clone():
    parsed = parse_sample(FIO / "fioplot__fio-3.6__numjobs8_no_group_reporting__randwrite-1-8.json")
    jobs = rows(parsed, "fio_jobs")
    assert len(jobs) == 8 and {j.jobname for j in jobs} == {"random-io"}
    # one test: every clone shares the workload key, so they aggregate together
    assert len({j.workload_key for j in jobs}) == 1


def test_fio_3_19_rw_mixed_split():
    parsed = parse_sample(FIO / "pbench__fio-3.19__rw_mixed_numjobs8__fio-result.txt")
    jobs = rows(parsed, "fio_jobs")
    assert len(jobs) == 8 and jobs[0].rw == "rw" and jobs[0].read_pct == 50
    assert all(d.lat_samples for d in rows(parsed, "fio_job_directions") if d.total_ios)


def test_fio_3_33_error_job_state_visible():
    parsed = parse_sample(FIO / "fioplot__fio-3.33__stderr_prefix_job_error22__write-64-1.json")
    (job,) = rows(parsed, "fio_jobs")
    assert job.state is RunState.error and job.error_code == 22
    (run,) = rows(parsed, "fio_runs")
    assert run.leading_text.startswith("fio: time_based requires a runtime/timeout setting")
    assert job.options_json["size"] == "100%%"


def test_fio_3_34_sigint_run_is_unfinished():
    parsed = parse_sample(FIO / "fioplot__fio-3.34__sigint_prefix__randread-1-1.json")
    (job,) = rows(parsed, "fio_jobs")
    assert job.state is RunState.unfinished
    assert "terminating on signal 2" in job.state_reason
    assert direction(parsed, 0, "read").runtime_ms == 2768
    assert job.job_runtime_ms == 2767


def test_fio_client_server_keeps_hosts_and_flags_all_clients():
    parsed = parse_sample(FIO / "pbench__fio-3.7__client_server_2hosts__fio-result.txt")
    jobs = rows(parsed, "fio_jobs")
    assert len(jobs) == 11
    aggregate = [j for j in jobs if j.is_all_clients_aggregate]
    assert len(aggregate) == 1 and aggregate[0].hostname == "perf84"  # last client's name
    hosts = [j.hostname for j in jobs if not j.is_all_clients_aggregate]
    assert hosts.count("perf36") == 5 and hosts.count("perf84") == 5
    (run,) = rows(parsed, "fio_runs")
    assert run.is_client_mode and run.leading_text.startswith("hostname=perf84")
    per_host = sum(
        direction(parsed, j.job_index, "read").iops for j in jobs if not j.is_all_clients_aggregate
    )
    assert direction(parsed, 0, "read").iops == pytest.approx(7951.016328)  # line 60
    assert per_host == pytest.approx(93303.65, abs=0.01)  # FORMATS.md 1.5
    assert direction(parsed, aggregate[0].job_index, "read").iops == pytest.approx(
        93198.15, abs=0.01
    )


def test_fio_3_33_local_client_server_json():
    parsed = parse_sample(LOCAL / "fio-3.33__json-client-server-2servers.json")
    jobs = rows(parsed, "fio_jobs")
    assert sum(j.is_all_clients_aggregate for j in jobs) == 1
    assert {j.port for j in jobs} == {8765, 8766}


def test_fio_status_interval_takes_final_dump_and_differences_intervals():
    path = LOCAL / "fio-3.33__json-status-interval-1s.json"
    parsed = parse_sample(path)
    (run,) = rows(parsed, "fio_runs")
    assert run.status_dump_count == 3 and run.is_finished
    documents = _documents(path)
    final = documents[2]["jobs"][0]
    read = direction(parsed, 0, "read")
    assert read.total_ios == final["read"]["total_ios"]
    assert read.lat_mean_ns == pytest.approx(final["read"]["lat_ns"]["mean"])
    intervals = [
        i for i in rows(parsed, "fio_intervals") if i.job_index == 0 and i.direction == "read"
    ]
    assert [i.dump_index for i in intervals] == [0, 1, 2]
    # cumulative dumps differenced: the intervals add up to the final totals
    assert sum(i.ios for i in intervals) == final["read"]["total_ios"]
    assert sum(i.io_bytes for i in intervals) == final["read"]["io_bytes"]
    second = documents[1]["jobs"][0]["read"]
    first = documents[0]["jobs"][0]["read"]
    assert intervals[1].ios == second["total_ios"] - first["total_ios"]
    # lat_percentiles=1 (HCIBench style): total-latency percentiles present
    assert rows(parsed, "fio_jobs")[0].percentile_kind == "lat"


def _documents(path: Path) -> list[dict]:
    text = path.read_text()
    decoder, docs, pos = json.JSONDecoder(), [], 0
    while (start := text.find("{", pos)) != -1:
        doc, pos = decoder.raw_decode(text, start)
        docs.append(doc)
    return docs


def test_fio_unfinished_status_interval_run_is_stored_as_unfinished():
    path = LOCAL / "fio-3.33__json-status-interval-1s.json"
    text = path.read_text()
    cut = text.index('{\n  "fio version"', 10)  # keep only the first, intermediate dump
    cut = text.index('{\n  "fio version"', cut + 10)
    data = text[:cut].encode()
    parsed = fio.parse(data, source_for("/x/vm1.json", data))
    (run,) = rows(parsed, "fio_runs")
    assert not run.is_finished and run.status_dump_count == 2
    assert all(j.state is RunState.unfinished for j in rows(parsed, "fio_jobs"))
    assert any("did not finish" in n for n in parsed.notes)


def test_fio_jsonplus_bins_kept_under_clat_and_lat():
    parsed = parse_sample(LOCAL / "fio-3.33__jsonplus-latpct-group.json")
    bins = rows(parsed, "fio_latency_bins")
    assert {b.latency_kind for b in bins} == {"clat", "lat"}
    # bins count every I/O of the direction
    read = direction(parsed, 0, "read")
    assert (
        sum(b.io_count for b in bins if b.direction == "read" and b.latency_kind == "lat")
        == read.total_ios
    )
    kinds = {p.latency_kind for p in rows(parsed, "fio_latency_percentiles")}
    assert kinds == {"clat", "lat"}
    assert rows(parsed, "fio_runs")[0].output_format == "json+"


def test_fio_unified_mixed_direction():
    parsed = parse_sample(LOCAL / "fio-3.33__json-unified-mixed.json")
    assert [d.direction for d in rows(parsed, "fio_job_directions")] == ["mixed"]


def test_fio_normal_plus_json_reads_the_json():
    parsed = parse_sample(LOCAL / "fio-3.33__normal-plus-json.txt")
    (run,) = rows(parsed, "fio_runs")
    assert run.output_format == "normal+json"
    assert rows(parsed, "fio_jobs")[0].rw == "randrw"


# ----------------------------------------------------------------------- terse


def test_fio_terse_v3_values_in_usec_converted_to_ns():
    parsed = parse_sample(LOCAL / "fio-3.33__terse-v3-2jobs.txt")
    jobs = rows(parsed, "fio_jobs")
    assert [j.jobname for j in jobs] == ["job0", "job1"]
    read = direction(parsed, 0, "read")
    # 3;fio-3.33;job0;0;0;87892;43924;10981;2001;0;0;0.000000;0.000000;18;4444;76.437279;...
    assert read.io_bytes == 87892 * 1024
    assert read.bw_bytes_per_s == 43924 * 1024
    assert read.iops == 10981 and read.runtime_ms == 2001
    assert read.clat_min_ns == 18_000 and read.clat_max_ns == 4_444_000
    assert read.clat_mean_ns == pytest.approx(76437.279)
    assert percentile(parsed, 0, "read", "clat", 99.0) == 164_000
    write = direction(parsed, 0, "write")
    assert write.io_bytes == 37552 * 1024 and write.iops == 4691
    assert jobs[0].usr_cpu_pct == pytest.approx(1.85) and jobs[0].sys_cpu_pct == pytest.approx(36.7)
    (disk,) = [d for d in rows(parsed, "fio_disk_util")][:1]
    assert (
        disk.disk_name == "vda" and disk.read_ios == 38694 and disk.util_pct == pytest.approx(77.40)
    )
    assert rows(parsed, "fio_runs")[0].terse_version == 3


def test_fio_terse_v5_has_trim_and_iops_stats():
    parsed = parse_sample(LOCAL / "fio-3.33__terse-v5-2jobs.txt")
    read = direction(parsed, 0, "read")
    assert read.io_bytes == 90392 * 1024 and read.iops == 11293
    assert read.bw_samples == 3
    assert (read.iops_min, read.iops_max) == (11068, 11596)
    assert read.iops_mean == pytest.approx(11247.333333)
    write = direction(parsed, 0, "write")
    assert write.io_bytes == 38604 * 1024 and write.iops == 4823
    assert rows(parsed, "fio_runs")[0].terse_version == 5


def test_fio_terse_client_mode_glued_eta_text():
    parsed = parse_sample(LOCAL / "fio-3.33__terse-client-server-2servers.txt")
    jobs = rows(parsed, "fio_jobs")
    assert [j.jobname for j in jobs] == ["job0", "job1", "job0", "job1", "All clients"]
    assert jobs[-1].is_all_clients_aggregate
    assert direction(parsed, 0, "read").io_bytes == 85500 * 1024
    assert direction(parsed, 4, "read").io_bytes == 345960 * 1024
    assert len(rows(parsed, "fio_disk_util")) == 2


# ---------------------------------------------------------------------- normal


def test_fio_normal_units_change_per_line():
    parsed = parse_sample(FIO / "igluko_pve-scripts__fio-3.25__normal_8groups__fio.out")
    jobs = rows(parsed, "fio_jobs")
    assert [j.groupid for j in jobs] == list(range(8))
    assert jobs[0].jobname == "Seq-Read" and jobs[0].block_size_bytes == 1024 * 1024
    assert jobs[6].iodepth == 32
    seq_read = direction(parsed, 0, "read")
    # read: IOPS=2043, BW=2043MiB/s (2143MB/s)(19.0GiB/10001msec)
    assert seq_read.iops == 2043 and seq_read.runtime_ms == 10001
    assert seq_read.bw_bytes_per_s == 2043 * 1024**2
    assert seq_read.total_ios == 20435  # issued rwts: total=20435,0,0,0
    assert seq_read.slat_mean_ns == pytest.approx(25.67e3)  # slat (usec) avg=25.67
    assert seq_read.clat_mean_ns == pytest.approx(463.33e3)
    assert percentile(parsed, 0, "read", "clat", 99.0) == 652e3
    seq_write = direction(parsed, 1, "write")
    assert seq_write.slat_mean_ns == pytest.approx(27852.45)  # slat (nsec)
    assert seq_write.total_ios == 17432
    assert jobs[0].usr_cpu_pct == pytest.approx(0.22) and jobs[0].ctx == 20438


def test_fio_normal_status_interval_keeps_last_block_per_run():
    parsed = parse_sample(
        FIO / "sumitshatwara__fio-3.1__normal_status-interval_transcript__fio_output.txt"
    )
    jobs = rows(parsed, "fio_jobs")
    assert [j.jobname for j in jobs] == ["randwrite", "randread", "seqwrite", "seqread", "randrw"]
    assert len(rows(parsed, "fio_runs")) == 5
    randrw = jobs[4].job_index
    # last of four randrw blocks: read IOPS=584 (7016KiB/3001msec), write IOPS=257
    assert direction(parsed, randrw, "read").iops == 584
    assert direction(parsed, randrw, "read").io_bytes == 7016 * 1024
    assert direction(parsed, randrw, "write").runtime_ms == 3001
    # write: IOPS=14.4k (SI suffix), clat (nsec) max=15745k
    write = direction(parsed, 0, "write")
    assert write.iops == 14400 and write.clat_max_ns == 15_745_000
    assert any("repeated job report" in n for n in parsed.notes)


def test_fio_normal_wrapper_script_output_group_reporting():
    parsed = parse_sample(FIO / "jonfk__fio-3.36__normal_group_reporting_randrw__fio_output.txt")
    jobs = rows(parsed, "fio_jobs")
    first = jobs[0]
    assert first.jobname == "sequential_read" and first.rw == "read"
    read = direction(parsed, 0, "read")
    # read: IOPS=110, BW=111MiB/s (116MB/s)(4096MiB/36978msec); issued total=4096
    assert read.iops == 110 and read.io_bytes == 4096 * 1024**2 and read.total_ios == 4096
    assert read.clat_mean_ns == pytest.approx(36091.93e3)
    random_read = next(j for j in jobs if j.jobname == "random_read")
    assert direction(parsed, random_read.job_index, "read").iops == 7334


# ------------------------------------------------------------------- bad input


def test_fio_only_error_text_is_rejected_with_reason():
    data, source = source_of(FIO / "fioplot__no_json_only_errors__randread-1-1.json")
    assert fio.detect(data, source.name)
    with pytest.raises(ParseError) as err:
        fio.parse(data, source)
    assert err.value.location == "line 1"
    assert "engine libaio not loadable" in err.value.reason


@pytest.mark.parametrize(
    ("content", "location", "reason"),
    [
        pytest.param(b"", "byte 0", "empty file", id="empty"),
        pytest.param(
            b"fio: pid=0, err=22/file:filesetup.c:1155\n",
            "line 1",
            "only fio error text",
            id="error-only",
        ),
        pytest.param(
            b'{\n  "fio version" : "fio-3.33",\n  "jobs" : [\n    {\n      "jobname" : "x",\n',
            "line 6, column 1",
            "malformed or truncated JSON",
            id="truncated-json",
        ),
        pytest.param(
            b'note\n{\n  "fio version" : "fio-3.33",\n  "jobs" : [ {"jobname": "x",, } ]\n}\n',
            "line 4, column 30",
            "malformed or truncated JSON",
            id="malformed-json",
        ),
    ],
)
def test_fio_bad_input(content, location, reason):
    with pytest.raises(ParseError) as err:
        fio.parse(content, source_for("/bad/out.json", content))
    assert err.value.location == location
    assert reason in err.value.reason
    assert err.value.path == "/bad/out.json"


def test_fio_job_file_is_not_fio_output():
    data, _ = source_of(LOCAL / "fio-3.33__randrw.fio")
    assert not fio.detect(data, "fio-3.33__randrw.fio")


# --------------------------------------------------------------- sizes, options


@pytest.mark.parametrize(
    ("text", "kb_base", "expected"),
    [
        ("4k", 1024, 4096),
        ("4K", 1024, 4096),
        ("4kb", 1024, 4096),
        ("4kB", 1024, 4096),
        # fio's default kb_base=1024 reads the IEC-looking suffixes as powers of 1000 (HOWTO
        # "Parameter types": "the unit prefixes are opposite from those specified in the SI
        # and IEC 80000-13 standards"; parse.c __get_mult_bytes)...
        ("4KiB", 1024, 4000),
        ("1024KiB", 1024, 1024000),
        ("1MiB", 1024, 1000000),
        # ...and kb_base=1000 turns both around.
        ("4KiB", 1000, 4096),
        ("1024KiB", 1000, 1048576),
        ("4k", 1000, 4000),
        ("1m", 1024, 1048576),
        ("1g", 1024, 1073741824),
        ("4096", 1024, 4096),
        ("4", 1024, 4),
        ("0x1000", 1024, 4096),
        ("4k,64k", 1024, 4096),
        ("1k-4k", 1024, 1024),
        ("100%", 1024, None),
        ("nonsense", 1024, None),
    ],
)
def test_parse_size_bytes(text, kb_base, expected):
    assert fio.parse_size_bytes(text, kb_base) == expected


@pytest.mark.parametrize(
    ("rw", "mix", "expected"),
    [
        ("read", {}, (100, 0)),
        ("write", {}, (0, 0)),
        ("randread", {}, (100, 100)),
        ("randwrite", {}, (0, 100)),
        ("rw", {}, (50, 0)),
        ("readwrite", {"rwmixread": 70}, (70, 0)),
        ("randrw", {"rwmixread": 70}, (70, 100)),
        ("randrw", {"rwmixwrite": 30}, (70, 100)),
        ("randrw", {"rwmixread": 70, "rwmixwrite": 40}, (70, 100)),
        ("randrw", {"rwmixread": 70, "rwmixwrite": 40, "rwmixwrite_given_last": True}, (60, 100)),
        ("randrw", {"percentage_random": 25}, (50, 25)),
        ("rw", {"percentage_random": 25}, (50, 0)),  # only random modes read it
        ("randread:8", {}, (100, 100)),
        ("randread", {"rwmixread": 70}, (100, 100)),  # a pure mode ignores the mix
        ("trim", {}, (0, 0)),
        ("randtrim", {}, (0, 100)),
        ("trimwrite", {}, (0, 0)),
        ("randtrimwrite", {}, (0, 100)),
        (None, {}, (100, 0)),  # fio's default rw=read
        ("sideways", {}, (None, None)),
    ],
)
def test_fio_read_random_pct_follows_fio_rw_rules(rw, mix, expected):
    assert fio_read_random_pct(rw, **mix) == expected


# ------------------------------------------------- fresh output from real fio


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio binary not installed")
def test_fio_fresh_json_plus_output_from_installed_fio(tmp_path):
    """Run the real fio (Debian's package) and check the parser against it."""
    target = tmp_path / "data.bin"
    out = tmp_path / "out.json"
    subprocess.run(
        [
            "fio",
            "--name=job0",
            f"--filename={target}",
            "--size=4m",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--ioengine=psync",
            "--number_ios=600",
            "--lat_percentiles=1",
            "--output-format=json+",
            f"--output={out}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    parsed = parse_sample(out)
    doc = json.loads(out.read_text())
    job = doc["jobs"][0]
    read = direction(parsed, 0, "read")
    assert read.total_ios == job["read"]["total_ios"] and read.io_bytes == job["read"]["io_bytes"]
    assert direction(parsed, 0, "write").total_ios == job["write"]["total_ios"]
    assert read.total_ios + job["write"]["total_ios"] == 600
    (row,) = rows(parsed, "fio_jobs")
    assert (row.rw, row.read_pct, row.block_size_bytes) == ("randrw", 70, 4096)
    bins = [
        b
        for b in rows(parsed, "fio_latency_bins")
        if b.direction == "read" and b.latency_kind == "lat"
    ]
    assert sum(b.io_count for b in bins) == read.total_ios


@pytest.mark.parametrize(
    ("name", "old", "new", "location", "value"),
    [
        pytest.param(
            "fioplot__fio-3.16__randread-32-32.json",
            b'"1.000000"',
            b'"1e40020.000000"',
            "line 55",
            "'1e40020.000000'",
            id="json-percentile-key",
        ),
        pytest.param(
            "sumitshatwara__fio-3.1__normal_status-interval_transcript__fio_output.txt",
            b" 5.00th=[",
            b" 5.095.00th=[",
            "line 16",
            "'5.095.00'",
            id="normal-percentile",
        ),
    ],
)
def test_fuzz_regression_malformed_number_is_a_parse_error(
    name: str, old: bytes, new: bytes, location: str, value: str
) -> None:
    # GIVEN a real output with one number mangled (found by fuzzing: float() raised ValueError)
    data = (FIO / name).read_bytes().replace(old, new, 1)
    # WHEN parsed THEN a clean rejection names the line and the value
    with pytest.raises(ParseError) as caught:
        fio.parse(data, source_for(f"/x/{name}", data))
    assert caught.value.location == location
    assert caught.value.reason.startswith("value of the wrong type")
    assert value in caught.value.reason
