"""HCIBench parser: case names, -res.txt layouts, parameter/config/resource files, bad input.

The results tree in tests/fixtures/hcibench/results is written by synth/fixtures/hcibench.py with
HCIBench's own arithmetic from real fio runs and Vdbench-format outputs; the numbers asserted
here were read off those files (and, for the cross-checks, recomputed from the per-VM files).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from ingest.parsers import hcibench, vdbench
from ingest.parsers._common import half_unit_of_last_digit
from ingest.parsers.hcibench.case_folder import hcibench_case_of
from ingest.records import ParseError
from ingest.registry import detect_format
from ingest.sources import source_for
from ingest.tables import to_arrow
from tests.conftest import FIXTURES, source_of
from tests.ingest.conftest import assert_fields

RESULTS = FIXTURES / "hcibench" / "results"
INVALID = FIXTURES / "hcibench" / "invalid"
FIO25 = RESULTS / "hcib25-fio" / "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000"
FIO28 = RESULTS / "hcib28" / "fio-4vmdk-50ws-8k-70rdpct-100randompct-2threads-1700100000"
VDB28 = RESULTS / "hcib28" / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
VDB25 = RESULTS / "hcib25-vdb" / "vdb-2vmdk-100ws-4k-70rdpct-100randompct-2threads-1700400000"
GROUP = RESULTS / "hcib28" / "group1-fio-1vmdk-100ws-64k-0rdpct-0randompct-1threads-1700300000"


def _utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=dt.UTC)


def _parse(path: Path, case: Path | None = None):
    data, source = source_of(path, hcibench_case=case.as_posix() if case else None)
    parsed = hcibench.parse(data, source)
    for table, rows in parsed.tables.items():  # rows fit their declared schema
        assert to_arrow(hcibench.TABLES[table], rows).num_rows == len(rows)
    return parsed


# ---------------------------------------------------------------------------------------------
# parse_case_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param(
            "fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1511829572",
            {
                "tool": "fio",
                "disks_per_vm": 8,
                "working_set_pct": 100,
                "block_size_bytes": 4096,
                "read_pct": 70,
                "random_pct": 100,
                "threads_per_disk": 4,
                "group_index": None,
                "user_prefix": None,
                "started_at": _utc(2017, 11, 28, 0, 39, 32),
                "param_name": "fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads",
            },
            id="fio-folder",
        ),
        pytest.param(
            "/opt/output/results/Just-A-Test/vdb-2vmdk-100ws-4k-70rdpct-100randompct-2threads-1567721576",
            {
                "tool": "vdbench",
                "disks_per_vm": 2,
                "threads_per_disk": 2,
                "started_at": _utc(2019, 9, 5, 22, 12, 56),
            },
            id="vdb-path",
        ),
        pytest.param(
            "fio-1vmdk-100ws-4-100rdpct-100randompct-2threads",
            {"block_size_bytes": 4096, "block_size_text": "4", "started_at": None, "read_pct": 100},
            id="bare-4-means-KiB-no-epoch",
        ),
        pytest.param(
            "group2-vdb-8vmdk-50ws-64k-0rdpct-0randompct-1threads-1700000000-res.txt",
            {
                "group_index": 2,
                "working_set_pct": 50,
                "block_size_bytes": 65536,
                "read_pct": 0,
                "random_pct": 0,
                "case_name": "group2-vdb-8vmdk-50ws-64k-0rdpct-0randompct-1threads-1700000000",
                "started_at": _utc(2023, 11, 14, 22, 13, 20),
            },
            id="group-res-txt",
        ),
        pytest.param(
            "group1-my-test-vdb-8vmdk-100ws-1m-100rdpct-0randompct-8threads",
            {
                "group_index": 1,
                "user_prefix": "my-test",
                "block_size_bytes": 1048576,
                "param_name": "my-test-vdb-8vmdk-100ws-1m-100rdpct-0randompct-8threads",
            },
            id="group-and-user-prefix-1m",
        ),
        pytest.param(
            "fio-2vmdk-10ws-8k-50rdpct-50randompct-16threads-1800rt-1700000000",
            {"name_suffix": "1800rt", "threads_per_disk": 16, "random_pct": 50},
            id="unknown-suffix-kept",
        ),
        pytest.param("easy-run-1511824453", None, id="test-folder"),
        pytest.param(
            "fio-8vmdk-100ws-4k-170rdpct-100randompct-4threads", None, id="read-pct-over-100"
        ),
        pytest.param("fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads.json", None, id="file-name"),
        pytest.param("hci-fio-datastore-2004-0-1", None, id="vm-name"),
    ],
)
def test_parse_case_name(name: str, expected: dict | None) -> None:
    result = hcibench.parse_case_name(name)
    if expected is None:
        assert result is None
    else:
        assert result is not None
        assert_fields(result, expected)


# ---------------------------------------------------------------------------------------------
# -res.txt summaries


@pytest.mark.parametrize(
    ("path", "case", "block", "unfinished"),
    [
        pytest.param(
            FIO25.with_name(FIO25.name + "-res.txt"),
            {
                "summary_layout": "fio",
                "hcibench_release_hint": "<=2.5",
                "tool": "fio",
                "read_pct": 50,
                "disks_per_vm": 2,
                "started_at": _utc(2023, 11, 14, 22, 13, 20),
                "resource_section": "cpu_usage_lines",
                "block_count": 1,
            },
            {
                "datastore_name": "vsanDatastore",
                "job_name": "job0",
                "vm_count": 2,
                "vms_finished_early": 0,
                "is_partial": False,
                "iops": 51102.38,
                "throughput_mib_per_s": 199.0,
                "read_latency_ms_vm_avg": 0.21,
                "write_latency_ms_vm_avg": 0.09,
                "p95_read_latency_ms_vm_avg": 0.0,
                "latency_decimals": 2,
                "mixed_latency_ms_summary_derived": 0.15,
            },
            [],
            id="fio-2.5",
        ),
        pytest.param(
            FIO28.with_name(FIO28.name + "-res.txt"),
            {
                "hcibench_release_hint": "2.8+",
                "resource_section": "resource_utilization_table",
                "read_pct": 70,
                "block_size_bytes": 8192,
                "working_set_pct": 50,
                "perf_stats_graph_url": "https://10.156.130.5:3000/d/vsan-overview?"
                "from=1700100000000&to=1700100060000",
            },
            {
                "vm_count": 2,
                "vms_finished_early": 1,
                "is_partial": True,
                "iops": 52152.64,
                "throughput_mib_per_s": 407.0,
                "read_latency_ms_vm_avg": 0.3511,
                "write_latency_ms_vm_avg": 0.1709,
                "p95_read_latency_ms_vm_avg": 0.5898,
                "p95_write_latency_ms_vm_avg": 0.3256,
                "latency_decimals": 4,
                # 0.7 * 0.3511 + 0.3 * 0.1709
                "mixed_latency_ms_summary_derived": 0.29704,
            },
            [("hci-fio-datastore-2004-0-3", "finished_early", None)],
            id="fio-2.8-early-vm",
        ),
        pytest.param(
            VDB28.with_name(VDB28.name + "-res.txt"),
            {
                "summary_layout": "vdbench_ruby",
                "hcibench_release_hint": "2.8+",
                "tool": "vdbench",
                "threads_per_disk": 4,
            },
            {
                "vdbench_version": "vdbench50407",
                "rd_name": "run1",
                "run_def_text": "RD=run1; I/O rate: Uncontrolled MAX; elapsed=20 warmup=10; "
                "For loops: None",
                "vm_count": 2,
                "vms_finished_early": 1,
                "is_partial": True,
                "iops": 5048.8,
                "throughput_mib_per_s": 19.72,
                "latency_ms_vm_avg": 0.45,
                "write_latency_ms_vm_avg": 0.0,
                "p95_latency_ms_normal_estimate": 0.91,
                "latency_decimals": 2,
                "mixed_latency_ms_summary_derived": 0.45,
            },
            [("hci-vdb-datastore-2004-0-2", "no_avg_line", 0)],
            id="vdbench-2.8-unfinished-vm",
        ),
        pytest.param(
            VDB25.with_name(VDB25.name + "-res.txt"),
            {"summary_layout": "vdbench_bash", "hcibench_release_hint": "<=2.5"},
            {
                "vdbench_version": "vdbench50406",
                "vm_count": 2,
                "iops": 5358.63,
                "throughput_mib_per_s": 20.93,
                "latency_ms_vm_avg": 0.67,
                "read_latency_ms_vm_avg": 0.4535,
                "write_latency_ms_vm_avg": 1.1625,
                "p95_latency_ms_normal_estimate": 1.6759,
                "latency_decimals": 4,
            },
            [],
            id="vdbench-2.5-bash",
        ),
        pytest.param(
            GROUP.with_name(GROUP.name + "-res.txt"),
            {
                "group_index": 1,
                "read_pct": 0,
                "random_pct": 0,
                "block_size_bytes": 65536,
                "param_name": "fio-1vmdk-100ws-64k-0rdpct-0randompct-1threads",
            },
            {
                "vm_count": 3,
                "iops": 5127.49,
                "throughput_mib_per_s": 320.0,
                "write_latency_ms_vm_avg": 0.5841,
                "p95_write_latency_ms_vm_avg": 1.1059,
                "mixed_latency_ms_summary_derived": 0.5841,
            },
            [],
            id="summary-only-group-case",
        ),
    ],
)
def test_res_txt(path: Path, case: dict, block: dict, unfinished: list) -> None:
    # GIVEN a summary beside its case folder (or alone) WHEN parsed THEN its numbers as printed
    parsed = _parse(path, path.with_name(path.name.removesuffix("-res.txt")))
    (case_row,) = parsed.tables["hcibench_cases"]
    assert_fields(case_row, case)
    (block_row,) = parsed.tables["hcibench_summary_blocks"]
    assert_fields(block_row, block)
    assert [
        (u.vm_name, u.reason, u.block_index) for u in parsed.tables["hcibench_unfinished_vms"]
    ] == unfinished


def test_resource_lines_2_5() -> None:
    parsed = _parse(FIO25.with_name(FIO25.name + "-res.txt"))
    (usage,) = parsed.tables["hcibench_resource_usage"]
    assert (
        usage.cluster_name,
        usage.cpu_usage_pct,
        usage.mem_usage_pct,
        usage.vsan_pcpu_usage_pct,
        usage.cpu_utilization_pct,
    ) == (None, 45.3, 30.1, 5.2, None)


def test_resource_table_2_8() -> None:
    parsed = _parse(FIO28.with_name(FIO28.name + "-res.txt"))
    rows = parsed.tables["hcibench_resource_usage"]
    assert [(r.host_name, r.is_average) for r in rows] == [
        ("10.156.130.11", False),
        ("10.156.130.12", False),
        ("10.156.130.13", False),
        ("10.156.130.14", False),
        (None, True),
    ]
    assert {r.cluster_name for r in rows} == {"vSAN-Cluster"}
    avg = rows[-1]
    assert (avg.cpu_usage_pct, avg.cpu_utilization_pct, avg.mem_usage_pct) == (50.87, 33.69, 60.83)


def test_several_clusters_and_datastores() -> None:
    text = (
        b"Datastore:  ds-a\n=============================\nVersion:    vdbench50406\n"
        b"Run Def:    RD=run1; I/O rate: Uncontrolled MAX; elapsed=300 warmup=60; For loops: None\n"
        b"VMs         = 2\nIOPS        = 1000.00 IO/s\nTHROUGHPUT  = 3.91 MB/s\n"
        b"LATENCY     = 1.0000 ms\nR_LATENCY   = 1.0000 ms\nW_LATENCY   = 0.0000 ms\n"
        b"95%tile_LAT = 2.6450 ms\n"
        b"Testing is done, 2 out of 3 VMs finished test successfully. Please check following "
        b"files for details:\n"
        b"  https://10.0.0.9:8443/output/results/t/vdb-x-1700000000/hci-vdb-ds-a-0-3.txt\n"
        b"=============================\n"
        b"Datastore:  ds-b\n=============================\nVersion:    vdbench50406\n"
        b"Run Def:    RD=run1; I/O rate: Uncontrolled MAX; elapsed=300 warmup=60; For loops: None\n"
        b"VMs         = 2\nIOPS        = 900.00 IO/s\nTHROUGHPUT  = 3.52 MB/s\n"
        b"LATENCY     = 1.1000 ms\nR_LATENCY   = 1.1000 ms\nW_LATENCY   = 0.0000 ms\n"
        b"95%tile_LAT = 2.7450 ms\n=============================\n"
        b"Resource Usage:\n"
        b"CPU USAGE  = c1: 45.3%; c2: 12.0%; \n"
        b"RAM USAGE  = c1: 30.1%; c2: 22.4%; \n"
    )
    parsed = hcibench.parse(text, source_for("/r/t/x-res.txt", text))
    blocks = parsed.tables["hcibench_summary_blocks"]
    assert [(b.datastore_name, b.iops, b.vms_finished_early) for b in blocks] == [
        ("ds-a", 1000.0, 1),
        ("ds-b", 900.0, 0),
    ]
    (bad,) = parsed.tables["hcibench_unfinished_vms"]
    assert (bad.datastore_name, bad.vm_name) == ("ds-a", "hci-vdb-ds-a-0-3")
    assert [
        (r.cluster_name, r.cpu_usage_pct, r.mem_usage_pct)
        for r in parsed.tables["hcibench_resource_usage"]
    ] == [("c1", 45.3, 30.1), ("c2", 12.0, 22.4)]
    assert parsed.tables["hcibench_cases"][0].datastore_count == 2


def test_curve_blocks_from_a_real_readme(samples: Path) -> None:
    # The only published HCIBench summary text: fio blocks with 2-decimal latencies (<= 2.5).
    readme = samples / "hcibench" / "cleeistaken_Test-Profiles__Curve-README-with-fio-res-blocks.md"
    first = re.search(r"```\n(.*?)```", readme.read_text(), re.DOTALL).group(1)
    text = ("Datastore     = vsanDatastore\n" + first).encode()
    parsed = hcibench.parse(text, source_for("/r/t/fio-x-1700000000-res.txt", text))
    (block,) = parsed.tables["hcibench_summary_blocks"]
    assert (
        block.vm_count,
        block.iops,
        block.throughput_mib_per_s,
        block.read_latency_ms_vm_avg,
        block.write_latency_ms_vm_avg,
        block.p95_write_latency_ms_vm_avg,
        block.latency_decimals,
    ) == (16, 26833.38, 107.0, 0.0, 11.28, 42.0, 2)
    assert parsed.tables["hcibench_cases"][0].hcibench_release_hint == "<=2.5"


def test_all_vms_finished_early() -> None:
    text = (
        b"Datastore     = vsanDatastore\nAll the VMs finished testing early, no results "
        b"summarized\nResource Usage:\n"
    )
    parsed = hcibench.parse(text, source_for("/r/t/fio-x-1700000000-res.txt", text))
    assert parsed.tables["hcibench_cases"][0].all_vms_finished_early is True
    assert parsed.tables["hcibench_summary_blocks"] == []
    # the load summary says why this case has no result
    assert parsed.no_result_reason == (
        "HCIBench summarized no results: all the VMs finished testing early"
    )


# ---------------------------------------------------------------------------------------------
# summaries agree with the per-VM files (HCIBench's arithmetic), so end-to-end tests can sum


def _fio_final_jobs(path: Path) -> list[dict]:
    decoder, text, pos, final = json.JSONDecoder(), path.read_text(), 0, []
    while (start := text.find("{", pos)) >= 0:
        doc, pos = decoder.raw_decode(text, start)
        if doc["jobs"][0]["eta"] == 0:
            final = doc["jobs"]
    return final


@pytest.mark.parametrize("case", [FIO25, FIO28], ids=["fio-2.5", "fio-2.8"])
def test_fio_summary_matches_per_vm_files(case: Path) -> None:
    jobs = [j for f in sorted(case.glob("*.json")) for j in _fio_final_jobs(f)]
    (block,) = _parse(case.with_name(case.name + "-res.txt")).tables["hcibench_summary_blocks"]
    assert block.vm_count == len(jobs)
    assert block.iops == float(f"{sum(j['read']['iops'] + j['write']['iops'] for j in jobs):.2f}")
    # KiB/s summed as integers and divided by 1024 with integer division
    assert (
        block.throughput_mib_per_s == sum(j["read"]["bw"] + j["write"]["bw"] for j in jobs) // 1024
    )
    r_lat = sum(j["read"]["lat_ns"]["mean"] for j in jobs) / len(jobs) / 1e6
    printed = f"{block.read_latency_ms_vm_avg:.{block.latency_decimals}f}"
    assert block.read_latency_ms_vm_avg == pytest.approx(
        r_lat, abs=half_unit_of_last_digit(printed)
    )


def test_vdbench_summary_matches_per_vm_files() -> None:
    runs = [
        vdbench.parse(*source_of(f)).tables["vdbench_runs"][0] for f in sorted(VDB28.glob("*.txt"))
    ]
    finished = [r for r in runs if r.iops is not None]
    (block,) = _parse(VDB28.with_name(VDB28.name + "-res.txt")).tables["hcibench_summary_blocks"]
    assert block.vm_count == len(finished) == 2
    assert block.iops == pytest.approx(sum(r.iops for r in finished))
    assert block.throughput_mib_per_s == pytest.approx(sum(r.mib_per_s for r in finished))
    mean_resp = sum(r.resp_ms for r in finished) / 2
    mean_std = sum(r.resp_stddev_ms for r in finished) / 2
    assert block.latency_ms_vm_avg == round(mean_resp, 2)
    assert block.p95_latency_ms_normal_estimate == round(mean_std * 1.645 + mean_resp, 2)


# ---------------------------------------------------------------------------------------------
# parameter, config and resource files


def test_fio_param_file_real_sample(samples: Path) -> None:
    path = (
        samples
        / "hcibench"
        / "cleeistaken_hcibenchapi__fio-1vmdk-100ws-4-100rdpct-100randompct-2threads.paramfile"
    )
    parsed = _parse(path)
    (params,) = parsed.tables["hcibench_params"]
    assert_fields(
        params,
        {
            "tool": "fio",
            "disks_per_vm": 1,
            "working_set_pct": 100.0,
            "block_size_bytes": 4096,
            "block_size_text": "4",
            "read_pct": 100.0,
            "random_pct": 100.0,
            "threads_per_disk": 2,
            "testing_time_s": 300,
            "warmup_s": 60,
            "interval_s": None,
            "io_rate_text": None,
            "fio_readwrite": "randread",
            "fio_ioengine": "libaio",
            "devices_json": ["/dev/sda"],
        },
    )
    assert params.options_json["group_reporting"] == ""
    assert any("has no unit" in note for note in parsed.notes)


def test_fio_cfg_in_case() -> None:
    (params,) = _parse(FIO28 / "fio.cfg", FIO28).tables["hcibench_params"]
    assert_fields(
        params,
        {
            "case_name": FIO28.name,
            "param_name": "fio-4vmdk-50ws-8k-70rdpct-100randompct-2threads",
            "disks_per_vm": 4,
            "working_set_pct": 50.0,
            "block_size_bytes": 8192,
            "read_pct": 70.0,
            "random_pct": 100.0,
            "threads_per_disk": 2,
            "fio_readwrite": "randrw",
            "devices_json": ["/dev/sda", "/dev/sdb", "/dev/sdc", "/dev/sdd"],
        },
    )


def test_vdbench_cfg_in_case() -> None:
    (params,) = _parse(VDB25 / "vdbench.cfg", VDB25).tables["hcibench_params"]
    assert_fields(
        params,
        {
            "tool": "vdbench",
            "disks_per_vm": 2,
            "working_set_pct": 100.0,
            "block_size_bytes": 4096,
            "read_pct": 70.0,
            "random_pct": 100.0,
            "threads_per_disk": 2,
            "testing_time_s": 30,
            "warmup_s": 10,
            "interval_s": 2,
            "io_rate_text": "max",
            "compratio": None,
            "devices_json": ["/dev/sda", "/dev/sdb"],
        },
    )
    assert params.options_json == {"debug": "86", "data_errors": "10000"}


def test_vdbench_params_with_ratios() -> None:
    text = (
        b"*Auto Generated VDBench Parameter File\n*1 raw disk, 0% random, 0% read\n"
        b"debug=86\ndata_errors=10000\ncompratio=2\ndedupratio=1.5\ndedupunit=4k\n"
        b"sd=sd1,lun=/dev/nvme0n1,openflags=o_direct,hitarea=0,range=(0,25),threads=1\n"
        b"wd=wd1,sd=(sd1),xfersize=256k,rdpct=0,seekpct=0\n"
        b"rd=run1,wd=wd1,iorate=5000,elapsed=600\n"
    )
    (params,) = hcibench.parse(text, source_for("/x/vdbench.cfg", text)).tables["hcibench_params"]
    assert (
        params.compratio,
        params.dedupratio,
        params.dedupunit_text,
        params.working_set_pct,
        params.block_size_bytes,
        params.io_rate_text,
        params.warmup_s,
    ) == (2.0, 1.5, "4k", 25.0, 262144, "5000", None)


def test_settings_never_store_secrets() -> None:
    path = FIO25 / "hcibench.cfg"
    parsed = _parse(path, FIO25)
    rows = parsed.tables["hcibench_settings"]
    by_key = {r.setting_key: r for r in rows}
    assert by_key["cluster_name"].value_json == '"vSAN-Cluster"'
    assert by_key["number_vm"].value_json == "2"
    assert by_key["datastore_name"].value_json == '["vsanDatastore"]'
    assert by_key["hosts_credential"].is_redacted and by_key["hosts_credential"].value_json is None
    stored = json.dumps([[getattr(r, f) for f in ("setting_key", "value_json")] for r in rows])
    assert "U2FsdGVkX1+fixtureSecretBlob==" not in stored
    assert "root" not in stored


def test_settings_secrets_at_any_depth() -> None:
    text = (
        b"vc: 10.0.0.5\ncluster_name: c1\ndatacenter_name: dc\nvc_username: admin@vsphere\n"
        b"vc_password: hunter2\napi_token: abc\nssh_key: xyz\nnested:\n  db_secret: s3\n"
        b"  ok: 1\n"
    )
    rows = hcibench.parse(text, source_for("/x/hcibench.cfg", text)).tables["hcibench_settings"]
    redacted = {r.setting_key for r in rows if r.is_redacted}
    assert redacted == {"vc_username", "vc_password", "api_token", "ssh_key", "nested.db_secret"}
    values = " ".join(str(r.value_json) for r in rows)
    for secret in ("admin@vsphere", "hunter2", "abc", "xyz", "s3"):
        assert secret not in values
    assert {r.setting_key: r.value_json for r in rows}["nested.ok"] == "1"


def test_vsan_cfg() -> None:
    parsed = _parse(VDB28 / "vsan.cfg", VDB28)
    (store,) = parsed.tables["hcibench_vsan_datastores"]
    assert_fields(
        store,
        {
            "datastore_name": "vsanDatastore",
            "is_local": True,
            "vsan_type": "All-Flash",
            "host_count": 4,
            "disk_groups_per_host": 2,
            "total_cache_disk_size_gb": 4800.0,
            "capacity_disks_per_disk_group": 3,
            "space_efficiency": "Deduplication/Compression",
            "dedupe_enabled": True,
            "compression_enabled": True,
            "ftm": "RAID-5/6",
            "ftt": 1,
            "secondary_ftt": 0,
            "checksum_enabled": True,
            "capacity_gb": 27940.0,
            "free_space_gb": 25102.0,
        },
    )
    assert [h.host_name for h in parsed.tables["hcibench_cluster_hosts"]] == [
        "10.156.130.11",
        "10.156.130.12",
        "10.156.130.13",
        "10.156.130.14",
    ]


@pytest.mark.parametrize(
    ("efficiency", "dedupe", "compression"),
    [
        ("None", False, False),
        ("Compression Only", False, True),
        ("Deduplication/Compression", True, True),
    ],
)
def test_vsan_cfg_space_efficiency(efficiency: str, dedupe: bool, compression: bool) -> None:
    text = (
        f"Remote vSAN Datastore Name: ds2\nSpace Efficiency: {efficiency}\n"
        "Fault Tolerance Preference: RAID-1(Mirroring)-Performance\n"
        "Checksum Disabled: True\n"
    ).encode()
    (store,) = hcibench.parse(text, source_for("/x/vsan.cfg", text)).tables[
        "hcibench_vsan_datastores"
    ]
    assert (
        store.is_local,
        store.dedupe_enabled,
        store.compression_enabled,
        store.ftm,
        store.checksum_enabled,
    ) == (False, dedupe, compression, "RAID-1", False)


def test_resource_info_files() -> None:
    (avg,) = _parse(VDB28 / "resource_usage.info", VDB28).tables["hcibench_resource_usage"]
    assert (
        avg.origin,
        avg.cluster_name,
        avg.cpu_usage_pct,
        avg.cpu_utilization_pct,
        avg.mem_usage_pct,
    ) == ("resource_usage_info", "vSAN-Cluster", 37.95, 25.0, 58.97)
    rows = _parse(VDB28 / "resource_util.info", VDB28).tables["hcibench_resource_usage"]
    assert [(r.host_name, r.cpu_usage_pct) for r in rows] == [
        ("10.156.130.11", 38.21),
        ("10.156.130.12", 36.95),
        ("10.156.130.13", 37.6),
        ("10.156.130.14", 39.04),
        (None, 37.95),
    ]


# ---------------------------------------------------------------------------------------------
# detection and bad input


def test_results_tree_detection() -> None:
    # Every file in the tree goes to exactly the parser meant for it.
    files = sorted(p for p in RESULTS.rglob("*") if p.is_file())
    known = {p.as_posix() for p in files}
    for path in files:
        fmt = detect_format(path.read_bytes()[:65536], path.name)
        if path.suffix == ".json":
            expected = "fio"
        elif path.suffix == ".txt" and not path.name.endswith("-res.txt"):
            expected = "vdbench"
        else:
            expected = "hcibench"
        assert fmt == expected, path.name
        assert hcibench_case_of(path.as_posix(), known) is not None, path.name


def test_does_not_claim_other_tools_outputs(samples: Path) -> None:
    others = [
        p
        for tool in ("fio", "vdbench", "esxtop")
        for p in (samples / tool).rglob("*")
        if p.is_file()
    ]
    others += [
        p
        for p in RESULTS.rglob("*")
        if p.suffix in (".json", ".txt") and not p.name.endswith("-res.txt")
    ]
    for path in others:
        assert not hcibench.detect(path.read_bytes()[:65536], path.name), path.name


@pytest.mark.parametrize(
    ("name", "location", "reason"),
    [
        pytest.param(
            "bad_number-res.txt",
            "line 5",
            "IOPS: '12x.5 IO/S' is not a number",
            id="res-bad-number",
        ),
        pytest.param(
            "wrong_unit-res.txt",
            "line 6",
            "THROUGHPUT: unit 'GB/s', expected 'MB/s'",
            id="res-wrong-unit",
        ),
        pytest.param(
            "cut_short-res.txt",
            "line 4",
            "summary block lacks IOPS, THROUGHPUT",
            id="res-cut-short",
        ),
        pytest.param("bad_line_vsan.cfg", "line 3", "expected 'Key: value'", id="vsan-cfg"),
        pytest.param(
            "resource_usage.info", "line 2, column 1", "invalid JSON", id="resource-usage-json"
        ),
        pytest.param(
            "option_outside_section_fio.cfg",
            "line 2",
            "fio option outside any [section]",
            id="fio-cfg",
        ),
        pytest.param(
            "missing_rd_vdbench.cfg", "end of file", "needs sd=, wd= and rd=", id="vdbench-cfg"
        ),
    ],
)
def test_invalid(name: str, location: str, reason: str) -> None:
    with pytest.raises(ParseError) as error:
        _parse(INVALID / name)
    assert error.value.location == location
    assert reason in error.value.reason


def test_invalid_yaml_does_not_echo_secret() -> None:
    with pytest.raises(ParseError) as error:
        _parse(INVALID / "bad_yaml_hcibench.cfg")
    assert error.value.location.startswith("line ")
    assert error.value.reason == "hcibench.cfg is not valid YAML"
    assert "topSecret" not in str(error.value)


def test_claims_only_hcibench_files_among_all_samples(samples: Path) -> None:
    # Quoted summaries and parameter files (the Curve README, the Vdbench article, FORMATS.md)
    # are documents, not HCIBench files: only the real parameter file copy is claimed.
    claimed = {
        p.relative_to(samples).as_posix()
        for p in samples.rglob("*")
        if p.is_file() and hcibench.detect(p.read_bytes()[:65536], p.name)
    }
    assert claimed == {
        "hcibench/cleeistaken_hcibenchapi__fio-1vmdk-100ws-4-100rdpct-100randompct-2threads.paramfile"
    }


def test_fuzz_regression_non_numeric_rwmixread_is_a_parse_error() -> None:
    # GIVEN the fixture fio.cfg without its read_pct header and with rwmixread=5x0 (found by
    # fuzzing: float() raised ValueError)
    case = "fio-2vmdk-100ws-4k-50rdpct-100randompct-2threads-1700000000"
    text = (RESULTS / "hcib25-fio" / case / "fio.cfg").read_text(encoding="utf-8")
    text = text.replace("; read_pct:       50\n", "").replace("rwmixread=50", "rwmixread=5x0")
    data = text.encode()
    with pytest.raises(ParseError) as caught:
        hcibench.parse(data, source_for("/x/fio.cfg", data))
    assert caught.value.location == "line 16"
    assert (
        caught.value.reason == "value of the wrong type: could not convert string to float: '5x0'"
    )
