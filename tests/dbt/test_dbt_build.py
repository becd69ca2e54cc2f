"""`dbt build` on a warehouse loaded from the real samples, and mart values
checked against numbers read from the sample files by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import SAMPLES

pytestmark = pytest.mark.slow

CLIENT_SERVER = SAMPLES / "fio" / "pbench__fio-3.7__client_server_2hosts__fio-result.txt"
JSONPLUS = SAMPLES / "fio" / "generated-locally" / "fio-3.33__jsonplus-latpct-group.json"
CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "CONTRACT.md"


def contract_marts() -> dict[str, list[str]]:
    """The required columns of each mart, read from the table in docs/CONTRACT.md section 3,
    so the contract is written once and this test can never drift from it."""
    marts: dict[str, list[str]] = {}
    for line in CONTRACT.read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        if len(cells) == 3 and cells[0].startswith("`marts."):
            # A parenthesis explains a column (e.g. the values it takes): not a column itself.
            columns = re.sub(r"\([^)]*\)", "", cells[2])
            marts[cells[0].strip("`").removeprefix("marts.")] = re.findall(r"`(\w+)`", columns)
    return marts


CONTRACT_MARTS = contract_marts()


def _result_of(warehouse, path) -> tuple:
    rows = warehouse.query(
        "select iops, read_iops, vm_count, avg_latency_ms, throughput_mb_s, p95_latency_ms, "
        "p95_latency_source, result_id "
        "from marts.fct_workload_results where result_key like ?",
        [f"fio::%{path.name}::%"],
    )
    assert len(rows) == 1, rows
    return rows[0]


def test_dbt_build_passes(built_warehouse):
    assert built_warehouse.build_success, built_warehouse.build_failures


@pytest.mark.parametrize("table, columns", list(CONTRACT_MARTS.items()), ids=list(CONTRACT_MARTS))
def test_marts_have_contract_columns(built_warehouse, table, columns):
    present = {
        name
        for (name,) in built_warehouse.query(
            "select column_name from information_schema.columns "
            "where table_schema = 'marts' and table_name = ?",
            [table],
        )
    }
    assert set(columns) <= present, sorted(set(columns) - present)


def test_client_mode_result_sums_host_jobs_and_skips_all_clients(built_warehouse):
    # GIVEN fio client mode, 5 jobs on perf36 and 5 on perf84, plus the
    # "All clients" aggregate (93,198.150858 IOPS, never added)
    iops, read_iops, vm_count, avg_latency_ms, mb_s, _, _, _ = _result_of(
        built_warehouse, CLIENT_SERVER
    )
    # THEN IOPS are the sum of the 10 host jobs' read iops from the file
    perf36 = [7951.016328, 7948.35055, 7950.083306, 7956.275412, 7953.01253]
    perf84 = [10833.599574, 11459.567388, 10407.215122, 10438.738859, 10405.790349]
    assert iops == pytest.approx(sum(perf36) + sum(perf84))
    assert iops == pytest.approx(93303.649418)
    assert read_iops == pytest.approx(93303.649418)
    assert vm_count == 2
    # bw (KiB/s) summed: 373,293 KiB/s = 382.252 MB/s
    assert mb_s == pytest.approx(373293 * 1024 / 1e6, rel=1e-4)
    # mean latency weighted by total_ios: sum(lat_ns.mean x total_ios) / sum(total_ios)
    assert avg_latency_ms == pytest.approx(3.42794717269322, rel=1e-9)


def test_client_mode_per_node_spread(built_warehouse):
    result_id = _result_of(built_warehouse, CLIENT_SERVER)[-1]
    [(host_count, low, high, imbalance, source)] = built_warehouse.query(
        "select host_count, host_iops_min, host_iops_max, host_imbalance_pct, host_iops_source "
        "from marts.per_node_iops where result_id = ?",
        [result_id],
    )
    assert (host_count, source) == (2, "fio_client")
    assert low == pytest.approx(39758.738126)  # perf36: 5 jobs
    assert high == pytest.approx(53544.911292)  # perf84: 5 jobs
    mean = (39758.738126 + 53544.911292) / 2
    assert imbalance == pytest.approx(100 * (53544.911292 - mean) / mean)


def test_client_mode_percentile_is_labelled_upper_bound(built_warehouse):
    *_, p95, source, _ = _result_of(built_warehouse, CLIENT_SERVER)
    assert source == "upper_bound_max_over_outputs"
    # largest per-job clat p95 in the file: 6,062,080 ns (perf36 jobs)
    assert p95 == pytest.approx(6.06208)


def test_jsonplus_percentile_comes_from_merged_bins(built_warehouse):
    # one job, read and write, both with lat_ns bins: merged read + write
    # bins put the 95th percentile in the 92,672 ns bin (read's own p95 is
    # 103,936 ns and write's 54,016 ns)
    *_, p95, source, _ = _result_of(built_warehouse, JSONPLUS)
    assert source == "exact_merged_histogram"
    assert p95 == pytest.approx(0.092672)


def test_folder_result_sums_outputs_and_divides_by_nodes(built_warehouse):
    rows = built_warehouse.query(
        "select fct.iops, fct.vm_count, fct.testbed, fct.transport, per_node.iops_per_node "
        "from marts.fct_workload_results as fct "
        "inner join marts.per_node_iops as per_node using (result_id) "
        "where fct.testbed = 'pytest-lab'"
    )
    # terse v3 (22,042 read + 9,477 write) and v5 (22,619 + 9,714) IOPS of
    # one test in one labelled folder form one result on 2 nodes
    assert len(rows) == 1, rows
    iops, vm_count, testbed, transport, per_node = rows[0]
    assert iops == pytest.approx(22042 + 9477 + 22619 + 9714)
    assert (vm_count, testbed, transport) == (2, "pytest-lab", "tcp")
    assert per_node == pytest.approx((22042 + 9477 + 22619 + 9714) / 2)


def test_failed_jobs_are_not_results(built_warehouse):
    rows = built_warehouse.query(
        "select count(*) from marts.fct_workload_results where result_key like ?",
        ["%stderr_prefix_job_error22%"],
    )
    assert rows == [(0,)]


def test_capacity_snapshot_ratio(built_warehouse):
    # pyVmomi OSA dedupe sample: logical / physical used = 8.2126...x; the ESA and the OSA
    # samples are each one capture saved as JSON and as XML: one observation of two files
    rows = built_warehouse.query(
        "select dedupe_compression_ratio, source_file_count from marts.dedupe_ratios "
        "where logical_used_bytes is not null order by 1"
    )
    assert [(round(r[0], 4), r[1]) for r in rows] == [(1.5, 2), (8.2126, 2)]


def test_published_results_seed_is_in_marts(built_warehouse):
    [(count,)] = built_warehouse.query("select count(*) from marts.published_results")
    assert count > 0
