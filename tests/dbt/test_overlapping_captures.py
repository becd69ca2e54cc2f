r"""A TCP run's esxtop captures that keep recording into the RDMA run's window never count for
the RDMA result: a capture attaches to a result only when its labels do not contradict the
result's (issue 27, "Host samples never cross labels").

A small warehouse: the reference dataset's Samsung PM1743 4 KiB random read on TCP
(14:39-14:40 UTC) and on RDMA (14:49-14:50), with the run folders' `run.yaml` labels
(`transport: tcp` / `rdma`), and esxtop captures of two hosts written with the real writer
(synth/esxtop_csv.py) in place of the reference's three:

    tcp folder   esx-r750-01 62 %, esx-r750-02 58 %   14:39:05 ... 14:50:00, every 5 s: started
                                                       by hand before the TCP run and stopped
                                                       after the RDMA run
    rdma folder  esx-r750-01 47 %, esx-r750-02 45 %   14:49:00 ... 14:50:00, every 5 s

Each capture's `_Total % Util Time` averages exactly to its host's figure inside each run's
window. Attached by testbed and window alone, the RDMA result mixed both transports: per host
(62 + 47) / 2 and (58 + 45) / 2, 53 % instead of 46 %. With the labels matched, TCP is 60 %,
RDMA 46 %, and the run explorer's `fct_result_captures` says which captures were left out and
why.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from synth.dataset import write_reference_dataset
from synth.esxtop_csv import HostCapture, capture_text
from tests.dbt.conftest import LoadedAndBuilt, load_and_build

pytestmark = pytest.mark.slow

STUDY = "samsung_pm1743_vsan8_esa"
TESTBED = "samsung-pm1743-vsan8-esa"
RUNS = {"tcp": "rdma/randread-4k-tcp", "rdma": "rdma/randread-4k-rdma"}
HOSTS = ("esx-r750-01.lab.local", "esx-r750-02.lab.local")
CPU = {"tcp": (62.0, 58.0), "rdma": (47.0, 45.0)}
LOAD = {"tcp": 0.62, "rdma": 0.47}
STEP_S = 5


def _at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


# The runs' windows as the fio outputs give them (fct_workload_results.started_at/ended_at),
# both ends inside the window.
TCP_WINDOW = (_at("2024-01-15 14:39:00"), _at("2024-01-15 14:40:00"))
RDMA_WINDOW = (_at("2024-01-15 14:49:00"), _at("2024-01-15 14:50:00"))


def _samples(start: dt.datetime, end: dt.datetime) -> int:
    return int((end - start).total_seconds()) // STEP_S + 1


def _capture(host: str, segments: list[tuple[dt.datetime, dt.datetime, float]], seed: int) -> str:
    """One host's capture, every STEP_S seconds over consecutive segments: each segment's
    `_Total % Util Time` averages exactly to its figure (the writer's rows after the first
    segment's header)."""
    header: list[str] = []
    body: list[str] = []
    for i, (start, end, util) in enumerate(segments):
        host_capture = HostCapture(host=host, util_pct=util, cpu_load_1min=round(util / 100, 2))
        lines = capture_text(
            [host_capture],
            first_sample_at=start,
            interval_s=STEP_S,
            samples=_samples(start, end),
            seed=seed + i,
        ).splitlines()
        header = header or [lines[0]]
        body += lines[1:]
    return "\n".join(header + body) + "\n"


def _tree(work: Path) -> Path:
    reference, tree = work / "reference", work / "tree"
    write_reference_dataset(reference)
    (tree / STUDY).mkdir(parents=True)
    shutil.copy(reference / "run.yaml", tree / "run.yaml")
    shutil.copy(reference / STUDY / "run.yaml", tree / STUDY / "run.yaml")
    for run in RUNS.values():
        shutil.copytree(reference / STUDY / run, tree / STUDY / run)
        for capture in (tree / STUDY / run).glob("esxtop-*.csv"):
            capture.unlink()
    step = dt.timedelta(seconds=STEP_S)
    for i, host in enumerate(HOSTS):
        name = f"esxtop-{host.split('.')[0]}.csv"
        # TCP: its own window, the pause between the runs (in no window), the RDMA window
        tcp = _capture(
            host,
            [
                (TCP_WINDOW[0] + step, TCP_WINDOW[1], CPU["tcp"][i]),
                (TCP_WINDOW[1] + step, RDMA_WINDOW[0] - step, 30.0),
                (RDMA_WINDOW[0], RDMA_WINDOW[1], CPU["tcp"][i]),
            ],
            seed=2700 + 10 * i,
        )
        (tree / STUDY / RUNS["tcp"] / name).write_text(tcp)
        rdma = _capture(host, [(*RDMA_WINDOW, CPU["rdma"][i])], seed=2750 + 10 * i)
        (tree / STUDY / RUNS["rdma"] / name).write_text(rdma)
    return tree


def result_id(built: LoadedAndBuilt, transport: str) -> str:
    ((rid,),) = built.query(
        "select result_id from marts.fct_workload_results where testbed = ? and transport = ?",
        [TESTBED, transport],
    )
    return rid


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> LoadedAndBuilt:
    work = tmp_path_factory.mktemp("overlapping_captures")
    tree = _tree(work)
    built = load_and_build(tree, work)
    # the captures load and dbt builds (every test below reads what it built)
    assert (built.load_exit, built.failures, built.success) == (0, [], True)
    return built


def test_the_tcp_captures_record_into_the_rdma_window(built):
    # the case itself: every host has samples of both captures inside the RDMA window
    rows = built.query(
        "select f.path like '%-tcp/%', h.host_name, count(*) from marts.fct_host_cpu_samples h "
        "join raw.source_files f on f.source_file_id = h.source_file_id "
        "where h.sampled_at between ? and ? group by all order by all",
        list(RDMA_WINDOW),
    )
    in_rdma_window = [(is_tcp, host, 13) for is_tcp in (False, True) for host in HOSTS]
    assert rows == in_rdma_window


def test_each_result_counts_only_its_own_transport(built):
    rows = dict(
        built.query(
            "select transport, cpu_util_pct from marts.fct_workload_results where testbed = ?",
            [TESTBED],
        )
    )
    # mixed by window alone: ((62 + 47) / 2 + (58 + 45) / 2) / 2 = 53
    assert rows["rdma"] == pytest.approx(46.0, abs=1e-6)
    assert rows["tcp"] == pytest.approx(60.0, abs=1e-6)


def test_rdma_efficiency_gain_is_computed_on_rdma_cpu(built):
    ((tcp_cpu, rdma_cpu, tcp_iops, rdma_iops, gain),) = built.query(
        "select tcp_cpu_util_pct, rdma_cpu_util_pct, tcp_iops, rdma_iops, "
        "rdma_efficiency_gain_pct from marts.transport_cpu_efficiency where testbed = ?",
        [TESTBED],
    )
    assert (tcp_cpu, rdma_cpu) == (pytest.approx(60.0, abs=1e-6), pytest.approx(46.0, abs=1e-6))
    expected = 100 * ((rdma_iops / 46.0) / (tcp_iops / 60.0) - 1)
    assert gain == pytest.approx(expected, rel=1e-9)
    assert gain > 0


def test_run_explorer_mart_says_which_captures_count(built):
    rows = built.query(
        "select result_id, regexp_extract(source_path, '-(tcp|rdma)/', 1), host_names, "
        "is_attached, left_out_reason, window_sample_count, last_sampled_at "
        "from marts.fct_result_captures order by all"
    )
    tcp, rdma = result_id(built, "tcp"), result_id(built, "rdma")
    reason = "transport: tcp (capture) vs rdma (result)"
    end = RDMA_WINDOW[1]
    expected = [
        (rdma, "rdma", HOSTS[0], True, None, 13, end),
        (rdma, "rdma", HOSTS[1], True, None, 13, end),
        (rdma, "tcp", HOSTS[0], False, reason, 13, end),
        (rdma, "tcp", HOSTS[1], False, reason, 13, end),
        (tcp, "tcp", HOSTS[0], True, None, 12, end),
        (tcp, "tcp", HOSTS[1], True, None, 12, end),
    ]
    assert sorted(rows) == sorted(expected)


def test_host_cpu_series_holds_only_attached_samples(built):
    rows = built.query(
        "select s.host_name, count(*), avg(s.cpu_util_pct) "
        "from marts.fct_result_host_cpu_samples s where s.result_id = ? group by all order by 1",
        [result_id(built, "rdma")],
    )
    assert [(h, n) for h, n, _ in rows] == [(HOSTS[0], 13), (HOSTS[1], 13)]
    assert [cpu for *_, cpu in rows] == [pytest.approx(47.0), pytest.approx(45.0)]
