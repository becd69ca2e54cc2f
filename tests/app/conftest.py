"""A tiny synthetic warehouse with the `marts.*` tables of CONTRACT.md section 3.

The app is tested on its own, without ingest or dbt: the rows are hand-made but realistic (a
4-node testbed with the Micron RA's profiles and read mixes, a TCP/RDMA pair, a dedupe
observation of 28.58 TB -> 3.48 TB = 8.21x), with the column names the dbt marts use.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

TESTBED = "lab-4node-vsan67"
RECONSTRUCTED = "micron-sata-vsan67-reconstructed"
PROFILES = ["baseline", "performance", "balanced", "density"]
READ_MIXES = [0, 30, 50, 70, 100]
# Latency and IOPS cost of each profile relative to the baseline (the Micron RA's shape).
PROFILE_IOPS_FACTOR = {"baseline": 1.0, "performance": 0.97, "balanced": 0.8, "density": 0.7}
DEDUPE_LOGICAL_BYTES = 28_580_000_000_000
DEDUPE_PHYSICAL_BYTES = 3_480_000_000_000

FCT_DDL = """
create table marts.fct_workload_results (
    result_id varchar, testbed_id varchar, workload_id varchar, testbed varchar,
    profile varchar, transport varchar, vsan_version varchar, working_set varchar,
    nodes integer, vm_count integer, read_pct integer, random_pct integer,
    block_size_bytes bigint, outstanding_io bigint, architecture varchar, ftm varchar,
    ftt integer, source_tool varchar, started_at timestamptz, ended_at timestamptz,
    iops double, read_iops double, write_iops double, throughput_mb_s double,
    avg_latency_ms double, read_latency_ms double, write_latency_ms double,
    p95_latency_ms double, p99_latency_ms double, cpu_util_pct double,
    source_file_count integer, labels_json varchar
)
"""


def _fct_rows() -> list[tuple]:
    rows: list[tuple] = []
    start = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    n = 0

    def add(
        testbed,
        profile,
        transport,
        ws,
        read_pct,
        iops,
        lat,
        cpu,
        nodes=4,
        vms=16,
        block=4096,
        oio=512,
        version="6.7",
    ):
        nonlocal n
        n += 1
        began = start + timedelta(hours=n)
        rows.append(
            (
                f"r{n:03d}",
                testbed,
                f"w{read_pct}",
                testbed,
                profile,
                transport,
                version,
                ws,
                nodes,
                vms,
                read_pct,
                100,
                block,
                oio,
                "OSA",
                "RAID-1",
                1,
                "fio",
                began,
                began + timedelta(minutes=30),
                iops,
                iops * read_pct / 100,
                iops * (100 - read_pct) / 100,
                iops * block / 1e6,
                lat,
                lat * 0.8,
                lat * 1.2,
                lat * 2.0,
                lat * 3.5,
                cpu,
                16,
                '{"testbed": "' + testbed + '"}',
            )
        )

    for ws, scale in (("cache", 1.0), ("capacity", 0.55)):
        for profile in PROFILES:
            for read_pct in READ_MIXES:
                iops = (120_000 + 3_600 * read_pct) * scale * PROFILE_IOPS_FACTOR[profile]
                add(TESTBED, profile, "tcp", ws, read_pct, round(iops), 512 / iops * 1000, 55.0)
    # TCP/RDMA pair at 70 % read (vSAN 8 ESA style).
    add(
        "lab-esa-8",
        "baseline",
        "tcp",
        "cache",
        70,
        400_000,
        1.28,
        80.0,
        nodes=6,
        vms=24,
        version="8.0u2",
    )
    add(
        "lab-esa-8",
        "baseline",
        "rdma",
        "cache",
        70,
        460_000,
        1.11,
        70.0,
        nodes=6,
        vms=24,
        version="8.0u2",
    )
    # A reconstructed testbed (reference dataset) for the data-origin note.
    add(RECONSTRUCTED, "baseline", None, "cache", 100, 486_000, 1.10, None)
    return rows


def build_warehouse(path: Path) -> None:
    con = duckdb.connect(str(path))
    try:
        con.execute("create schema marts")
        con.execute(FCT_DDL)
        con.executemany(
            "insert into marts.fct_workload_results values (" + ", ".join(["?"] * 32) + ")",
            _fct_rows(),
        )
        con.execute(
            """
            create table marts.per_node_iops as
            select result_id, testbed_id, testbed, nodes, profile, working_set, read_pct,
                   random_pct, block_size_bytes, outstanding_io, source_tool, iops,
                   iops / nodes as iops_per_node, nodes as host_count,
                   iops / nodes * 0.95 as host_iops_min, iops / nodes * 1.06 as host_iops_max,
                   iops / nodes as host_iops_mean, 6.0 as host_imbalance_pct,
                   'fio_client' as host_iops_source
            from marts.fct_workload_results
            """
        )
        con.execute(
            """
            create table marts.profile_latency_deltas as
            with base as (
                select * from marts.fct_workload_results where testbed = ?
            )
            select b.testbed, b.working_set, b.read_pct, b.block_size_bytes, b.random_pct,
                   b.profile, 'baseline' as baseline_profile,
                   case b.profile when 'performance' then 'baseline'
                       when 'balanced' then 'performance' when 'density' then 'balanced'
                   end as previous_profile,
                   b.iops, b.avg_latency_ms,
                   100 * (b.iops - f.iops) / f.iops as iops_vs_baseline_pct,
                   100 * (b.avg_latency_ms - f.avg_latency_ms) / f.avg_latency_ms
                       as latency_vs_baseline_pct,
                   cast(null as double) as iops_vs_previous_pct,
                   cast(null as double) as latency_vs_previous_pct
            from base as b
            join base as f
              on f.profile = 'baseline' and f.working_set = b.working_set
             and f.read_pct = b.read_pct
            """,
            [TESTBED],
        )
        con.execute(
            """
            create table marts.config_deltas as
            select 'd1' as config_delta_id, 'r101' as from_result_id, 'r102' as to_result_id,
                   'lab-esa-8' as testbed, 70 as read_pct, 100 as random_pct,
                   4096 as block_size_bytes, 512 as outstanding_io, 'transport' as dimension,
                   'tcp' as from_value, 'rdma' as to_value, 15.0 as iops_delta_pct,
                   -13.3 as avg_latency_delta_pct, -10.0 as p95_latency_delta_pct,
                   -12.5 as cpu_delta_pct
            union all
            select 'd2', 'r001', 'r006', ?, 0, 100, 4096, 512, 'profile', 'baseline',
                   'performance', -3.0, 3.1, 2.0, 1.0
            """,
            [TESTBED],
        )
        con.execute(
            """
            create table marts.transport_cpu_efficiency as
            select 'lab-esa-8' as testbed, 70 as read_pct, 100 as random_pct,
                   4096 as block_size_bytes, 512 as outstanding_io,
                   1 as tcp_result_count, 1 as rdma_result_count,
                   400000.0 as tcp_iops, 460000.0 as rdma_iops,
                   1638.4 as tcp_throughput_mb_s, 1884.2 as rdma_throughput_mb_s,
                   80.0 as tcp_cpu_util_pct, 70.0 as rdma_cpu_util_pct,
                   5000.0 as tcp_iops_per_cpu_pct, 6571.4 as rdma_iops_per_cpu_pct,
                   31.4 as rdma_efficiency_gain_pct
            """
        )
        con.execute(
            """
            create table marts.dedupe_ratios as
            select 'cap1' as capacity_observation_id, ? as testbed, 'RAID-1' as ftm,
                   1 as ftt, 'OSA' as architecture,
                   timestamptz '2026-03-02 10:00:00+00' as captured_at,
                   cast(? as bigint) as logical_used_bytes,
                   cast(? as bigint) as physical_used_bytes,
                   round(? / ?, 2) as dedupe_compression_ratio,
                   2.0 as capacity_multiplier,
                   round(? / ?, 2) / 2.0 as usable_to_raw_ratio
            """,
            [TESTBED, DEDUPE_LOGICAL_BYTES, DEDUPE_PHYSICAL_BYTES]
            + [DEDUPE_LOGICAL_BYTES, DEDUPE_PHYSICAL_BYTES] * 2,
        )
        con.execute(
            """
            create table marts.published_results (
                figure_id varchar, source_document varchar, table_or_figure varchar,
                testbed varchar, nodes integer, vsan_version varchar, profile varchar,
                transport varchar, working_set varchar, vm_count integer, read_pct integer,
                random_pct integer, block_size_bytes bigint, outstanding_io integer,
                metric varchar, compared_to varchar, value double, unit varchar,
                value_as_printed varchar, qualifier varchar, note varchar
            )
            """
        )
        published = []
        for read_pct, iops, lat in ((0, 121_000, 4.23), (100, 486_000, 1.10)):
            for metric, value, unit in (("iops", iops, "IOPS"), ("avg_latency_ms", lat, "ms")):
                published.append(
                    (
                        f"micron67-fig4-r{read_pct}-{metric}",
                        "micron_vsan67_sata_ra",
                        "Figure 4",
                        "micron-sata-vsan67",
                        4,
                        "6.7",
                        "baseline",
                        None,
                        "cache",
                        16,
                        read_pct,
                        100,
                        4096,
                        512,
                        metric,
                        None,
                        value,
                        unit,
                        str(value),
                        "exact",
                        "synthetic test row",
                    )
                )
        con.executemany(
            "insert into marts.published_results values (" + ", ".join(["?"] * 21) + ")",
            published,
        )
        _add_result_details(con)
    finally:
        con.close()


# Result r001 (baseline, cache, 0 % read) ran 09:00-09:30 UTC on 2026-03-01.
DETAIL_RESULT = "r001"
CPU_SAMPLES_PER_HOST = 5000  # more than a chart may draw: the query layer must bucket them


def _add_result_details(con: duckdb.DuckDBPyConnection) -> None:
    """The run explorer's detail marts (columns as dbt builds them), for r001: 4 VMs,
    percentiles, json+ bins, 30 one-minute intervals and 2 hosts x 5,000 esxtop CPU samples
    over the run window."""
    con.execute(
        """
        create table marts.fct_result_outputs as
        select 'o' || i as result_output_id, 'r001' as result_id, i as source_file_id,
               'fio' as source_tool, '/runs/r001/vm-' || i || '.json' as source_path,
               'esx0' || (i % 2 + 1) as host_name, 'vm-' || i as output_label,
               30000.0 + 1000 * i as iops, 0.0 as read_iops, 30000.0 + 1000 * i as write_iops,
               (30000.0 + 1000 * i) * 4096 / 1e6 as throughput_mb_s,
               4.0 + i / 10 as avg_latency_ms,
               100 * (30000.0 + 1000 * i) / 126000 as share_of_result_iops_pct,
               100 * (30000.0 + 1000 * i - 31500) / 31500 as iops_vs_output_mean_pct
        from range(4) as t(i)
        """
    )
    con.execute(
        """
        create table marts.fct_result_latency_percentiles as
        select d.direction || p.percentile as result_percentile_id, 'r001' as result_id,
               d.direction, p.percentile, p.latency_ms * d.factor as latency_ms,
               4 as output_count, 'fio_clat_percentiles' as latency_source
        from (values ('read', 1.0), ('write', 1.5)) as d(direction, factor),
             (values (50.0, 3.9), (90.0, 6.1), (99.0, 9.8), (99.9, 20.3))
                 as p(percentile, latency_ms)
        """
    )
    con.execute(
        """
        create table marts.fct_result_latency_histogram as
        select 'b' || i as histogram_bin_id, 'r001' as result_id, 'write' as direction,
               'clat' as latency_kind, 0.001 * pow(2, i) as bin_ms,
               cast(1000 * exp(-pow(i - 12, 2) / 8) as hugeint) as io_count
        from range(24) as t(i)
        """
    )
    con.execute(
        """
        create table marts.fct_result_intervals as
        select 'i' || i as result_interval_id, 'r001' as result_id, i as interval_index,
               'fio' as source_tool, 60.0 * (i + 1) as elapsed_s, 60.0 as interval_s,
               4 as output_count, 120000.0 + i as iops, 491.5 as throughput_mb_s,
               4.2 as avg_latency_ms
        from range(30) as t(i)
        """
    )
    con.execute(
        """
        create table marts.fct_host_cpu_samples as
        select h || '-' || i as host_cpu_sample_id, 'lab-4node-vsan67' as testbed_id,
               1 as source_file_id, 'lab-4node-vsan67' as testbed, 'esx0' || h as host_name,
               'esxtop' as source_tool,
               timestamptz '2026-03-01 08:50:00+00' + to_milliseconds(i * 480) as sampled_at,
               50.0 + h + (i % 10) as cpu_util_pct
        from range(1, 3) as hh(h), range(?) as t(i)
        """,
        [CPU_SAMPLES_PER_HOST],
    )


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("app") / "warehouse.duckdb"
    build_warehouse(path)
    return path


@pytest.fixture(scope="session")
def empty_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with an empty `marts` schema: every page must say "no data", not fail."""
    path = tmp_path_factory.mktemp("app_empty") / "warehouse.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.close()
    return path


@pytest.fixture()
def warehouse_env(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(warehouse))
    yield warehouse


# --- The real warehouse and a running app, for the browser test and figure checks ----------

REPO = Path(__file__).resolve().parents[2]
REAL_LOAD_ARGS = ("tests/fixtures/hcibench/results",)


def _run(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> None:
    # Subprocesses, not in-process calls: dbt-duckdb keeps a read-write handle open in the
    # process that ran it, and that lock would keep the Streamlit server (another process) out.
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode not in ok:
        pytest.fail(f"{' '.join(cmd[:4])} exited {done.returncode}:\n{done.stdout[-3000:]}")


def build_real_warehouse(db_path: Path, work: Path) -> None:
    """What scripts/main.sh does: load the samples, valid fixtures and the reference dataset,
    dbt build, validate, publish the serving snapshot."""
    from tests.conftest import SAMPLES

    env = {
        **os.environ,
        "PERF_DUCKDB_PATH": str(db_path),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    valid = sorted(str(p.relative_to(REPO)) for p in (REPO / "tests" / "fixtures").glob("*/valid"))
    py = sys.executable
    paths = [str(SAMPLES), *valid, *REAL_LOAD_ARGS]
    # The reference dataset (rebuilt from the studies' published figures) is what a new user
    # sees first; the key-figure tests read it.
    reference = work / "reference"
    _run([py, "-m", "ingest", "reference", str(reference)], env)
    paths.append(str(reference))
    # Exit 1: some samples are broken on purpose and are rejected with a reason.
    _run([py, "-m", "ingest", "load", *paths, "--quiet"], env, (0, 1))
    dbt = [
        str(Path(py).with_name("dbt")), "build", "--project-dir", "dbt_project",
        "--profiles-dir", "dbt_project", "--target-path", str(work / "target"),
        "--log-path", str(work / "logs"), "--quiet",
    ]  # fmt: skip
    _run(dbt, env)
    if (REPO / "expectations" / "__main__.py").is_file():
        # Exit 1 = some constraint failed; the data-quality page shows that, so it is data too.
        _run([py, "-m", "expectations"], env, (0, 1))
    if importlib.util.find_spec("ingest.publish") is not None:
        # The app reads the serving snapshot once one exists; `load` published one before dbt.
        _run([py, "-m", "ingest", "publish", "--db", str(db_path)], env)


@pytest.fixture(scope="session")
def real_warehouse(samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("app_real")
    path = work / "warehouse.duckdb"
    build_real_warehouse(path, work)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(real_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`streamlit run` on the real warehouse; yields its base URL once /_stcore/health is ok."""
    port = free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    env = {**os.environ, "PERF_DUCKDB_PATH": str(real_warehouse)}
    cmd = [
        sys.executable, "-m", "streamlit", "run", "app/streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port),
        "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                    if resp.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"streamlit did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
