r"""Host CPU from esxtop captures that were cut, hold a counter twice or a row twice reaches the
marts, and `dbt build` passes.

A small warehouse: the reference dataset's Samsung PM1743 RDMA study, one workload (4 KiB
random read) on TCP and on RDMA, three esxtop captures per run (one per host, 11 samples of
`Physical Cpu(_Total)\% Util Time`). Each capture is edited at run time:

    tcp   host 01  cut in the middle of its last row (no line end)
    tcp   host 02  cut in the middle of its last row, then a line end (rejected whole before)
    tcp   host 03  cut at the row boundary before its last row
    rdma  host 01  cut inside the last (quoted) cell of its last row
    rdma  host 02  a second `\Physical Cpu(_Total)\% Util Time` column carrying other values
    rdma  host 03  its fifth row written twice

The expected host CPU is the mean of the kept rows' `_Total` cells, read from the unedited
capture with the csv module: the first 10 rows of a cut capture, all 11 otherwise.

Beside them, the real Excel re-save from ../shared/samples/esxtop (stamps without seconds, 514
samples in 48 minutes) given the `_Total % Util Time` column esxtop writes (the mean of its two
PCPUs), in its own labelled folder: samples sharing a minute once broke the unique key of
`fct_host_cpu_samples`; each minute is now one sample, the mean of its rows.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from ingest.__main__ import main as ingest_main
from synth.dataset import write_reference_dataset
from tests.conftest import SAMPLES
from tests.dbt.conftest import _dbt_build

pytestmark = pytest.mark.slow

STUDY = "samsung_pm1743_vsan8_esa"
TESTBED = "samsung-pm1743-vsan8-esa"
RUNS = {"tcp": "rdma/randread-4k-tcp", "rdma": "rdma/randread-4k-rdma"}
HOSTS = ("esx-r750-01", "esx-r750-02", "esx-r750-03")
TOTAL_UTIL = r"\Physical Cpu(_Total)\% Util Time"
TOTAL_PROC = r"\Physical Cpu(_Total)\% Processor Time"
LOAD_1MIN = r"\Physical Cpu Load\Cpu Load (1 Minute Avg)"
EXCEL = SAMPLES / "esxtop" / "gsliu_VisualEsxtopOnline__origincsvfile-excel-resaved.csv"
EXCEL_HOST = "proma-2n-dhcp60.eng.vmware.com"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _column(rows: list[list[str]], suffix: str) -> int:
    (index,) = [i for i, cell in enumerate(rows[0]) if cell.endswith(suffix)]
    return index


def _last_row_start(data: bytes) -> int:
    return data.rstrip(b"\n").rfind(b"\n") + 1


def _middle_of_last_row(data: bytes) -> int:
    start = _last_row_start(data)
    return start + (len(data) - start) // 2


def _duplicate_total_util(data: bytes) -> bytes:
    """A copy of the `_Total % Util Time` column at the end, holding `% Processor Time`."""
    rows = _rows(data.decode())
    util, proc = _column(rows, TOTAL_UTIL), _column(rows, TOTAL_PROC)
    out = [[*rows[0], rows[0][util]]] + [[*row, row[proc]] for row in rows[1:]]
    return "".join(",".join(f'"{c}"' for c in row) + "\n" for row in out).encode()


def _row_twice(data: bytes, row: int) -> bytes:
    lines = data.split(b"\n")
    return b"\n".join([*lines[: row + 1], lines[row], *lines[row + 1 :]])


# (transport, host) -> (edit, rows of the unedited capture that count)
EDITS = {
    ("tcp", HOSTS[0]): (lambda d: d[: _middle_of_last_row(d)], 10),
    ("tcp", HOSTS[1]): (lambda d: d[: _middle_of_last_row(d)] + b"\n", 10),
    ("tcp", HOSTS[2]): (lambda d: d[: _last_row_start(d)], 10),
    ("rdma", HOSTS[0]): (lambda d: d[:-3], 10),
    ("rdma", HOSTS[1]): (_duplicate_total_util, 11),
    ("rdma", HOSTS[2]): (lambda d: _row_twice(d, 5), 11),
}


@dataclass(frozen=True)
class Built:
    db: Path
    tree: Path
    success: bool
    failures: list[str]
    load_exit: int
    expected_cpu: dict[str, float]  # transport -> mean over hosts of the kept rows' mean
    expected_load: dict[str, float]  # the same for the 1-minute CPU load average

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        # dbt-duckdb keeps its own (read-write) handle open in this process; DuckDB only shares
        # a file between handles of the same configuration
        con = duckdb.connect(str(self.db))
        try:
            return con.execute(sql, params or []).fetchall()
        finally:
            con.close()


def _excel_with_total(folder: Path) -> None:
    """The Excel re-save with a `_Total % Util Time` column: the mean of PCPU 0 and 1."""
    rows = _rows(EXCEL.read_text())
    cpu0, cpu1 = _column(rows, r"Cpu(0)\% Util Time"), _column(rows, r"Cpu(1)\% Util Time")
    header = [*rows[0], f"\\\\{EXCEL_HOST}{TOTAL_UTIL}"]
    body = [[*r, f"{(float(r[cpu0]) + float(r[cpu1])) / 2:.3f}"] for r in rows[1:]]
    folder.mkdir()
    (folder / "run.yaml").write_text("testbed: excel-resave\n")
    text = "".join(",".join(r) + "\r\n" for r in [header, *body])
    (folder / "esxtop-excel.csv").write_text(text, newline="")


def _kept_mean(rows: list[list[str]], suffix: str, kept: int) -> float:
    column = _column(rows, suffix)
    return statistics.fmean(float(r[column]) for r in rows[1 : 1 + kept])


def _tree(work: Path) -> tuple[Path, dict[str, float], dict[str, float]]:
    reference, tree = work / "reference", work / "tree"
    write_reference_dataset(reference)
    (tree / STUDY).mkdir(parents=True)
    shutil.copy(reference / "run.yaml", tree / "run.yaml")
    shutil.copy(reference / STUDY / "run.yaml", tree / STUDY / "run.yaml")
    expected: dict[str, float] = {}
    expected_load: dict[str, float] = {}
    for transport, run in RUNS.items():
        shutil.copytree(reference / STUDY / run, tree / STUDY / run)
        host_means, host_loads = [], []
        for host in HOSTS:
            capture = tree / STUDY / run / f"esxtop-{host}.csv"
            original = capture.read_bytes()
            edit, kept = EDITS[transport, host]
            capture.write_bytes(edit(original))
            rows = _rows(original.decode())
            assert len(rows) == 12  # header + 11 samples
            host_means.append(_kept_mean(rows, TOTAL_UTIL, kept))
            host_loads.append(_kept_mean(rows, LOAD_1MIN, kept))
        expected[transport] = statistics.fmean(host_means)
        expected_load[transport] = statistics.fmean(host_loads)
    _excel_with_total(tree / "excel-resave")
    return tree, expected, expected_load


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    work = tmp_path_factory.mktemp("esxtop_edges")
    tree, expected, expected_load = _tree(work)
    db = work / "warehouse.duckdb"
    load_exit = ingest_main(["load", str(tree), "--db", str(db), "--quiet"])
    success, failures = _dbt_build(db, work)
    return Built(db, tree, success, failures, load_exit, expected, expected_load)


def test_edited_captures_load_and_dbt_build_passes(built):
    assert built.load_exit == 0
    assert built.failures == []
    assert built.success


def test_kept_samples_per_capture(built):
    rows = built.query(
        "select f.path, c.sample_count, c.dropped_rows, c.times_reliable, c.column_count "
        "from raw.esxtop_captures c join raw.source_files f "
        "on f.source_file_id = c._source_file_id order by f.path"
    )
    got = {
        (Path(p).parent.name.rsplit("-", 1)[1], Path(p).stem[7:]): tuple(r)
        for p, *r in rows
        if "excel" not in p
    }
    # 212 counters: 3 loads, 97 x 2 CPU (96 PCPUs + _Total), 3 memory, 2 x 3 disk, 2 x 3 NIC;
    # the duplicated column is not one of them
    assert got == {
        ("rdma", HOSTS[0]): (10, 1, True, 212),
        ("rdma", HOSTS[1]): (11, 0, True, 212),
        ("rdma", HOSTS[2]): (11, 0, False, 212),
        ("tcp", HOSTS[0]): (10, 1, True, 212),
        ("tcp", HOSTS[1]): (10, 1, True, 212),
        ("tcp", HOSTS[2]): (10, 0, True, 212),
    }


def test_each_edit_is_said_in_the_file_notes(built):
    notes = {
        Path(path).parent.name.rsplit("-", 1)[1] + " " + Path(path).stem[7:]: json.loads(n)
        for path, n in built.query("select path, notes_json from raw.source_files")
        if Path(path).name.startswith("esxtop-esx")
    }
    cut = "the capture was cut mid-row (esxtop stopped mid-write)"
    # the middle of the last row falls after the 105th cell: 106 of 213 fields
    for host in HOSTS[:2]:
        assert notes[f"tcp {host}"] == [
            f"dropped truncated last row (line 12): 106 fields where the header has 213; {cut}"
        ]
    assert notes[f"tcp {HOSTS[2]}"] == []
    assert notes[f"rdma {HOSTS[0]}"] == [
        f"dropped truncated last row (line 12): the file ends inside a quoted cell; {cut}"
    ]
    # `_Total % Util Time` is counter 197 (3 loads, 97 `% Processor Time`, 96 PCPUs) and the
    # copy counter 213; +1 for the timestamp column
    assert notes[f"rdma {HOSTS[1]}"] == [
        "1 counter columns repeat an earlier column: dropped, the first kept (e.g. column 214, "
        rf"\\{HOSTS[1]}.lab.local\Physical Cpu(_Total)\% Util Time, repeats column 198)"
    ]
    capture = built.tree / STUDY / RUNS["rdma"] / f"esxtop-{HOSTS[2]}.csv"
    repeated = _rows(capture.read_text())[6][0]
    assert notes[f"rdma {HOSTS[2]}"] == [
        "sample times unreliable: 1 samples repeat an earlier sample's time, the first at "
        f"line 7 ({repeated!r}): dropped, the first of each kept; the capture's time window "
        "is doubtful"
    ]


def test_host_cpu_samples_count_each_sample_once(built):
    counts = built.query(
        "select host_name, count(*), count(distinct sampled_at) from marts.fct_host_cpu_samples "
        "where testbed = ? group by host_name order by host_name",
        [TESTBED],
    )
    # per host: tcp + rdma captures
    assert counts == [
        (f"{HOSTS[0]}.lab.local", 20, 20),
        (f"{HOSTS[1]}.lab.local", 21, 21),
        (f"{HOSTS[2]}.lab.local", 21, 21),
    ]


def test_host_cpu_reaches_workload_results(built):
    rows = built.query(
        "select transport, cpu_util_pct, cpu_util_source from marts.fct_workload_results "
        "where testbed = ? order by transport",
        [TESTBED],
    )
    assert [(t, s) for t, _, s in rows] == [("rdma", "capture"), ("tcp", "capture")]
    for transport, cpu, _ in rows:
        assert cpu == pytest.approx(built.expected_cpu[transport], abs=1e-9)


def test_host_cpu_load_average_reaches_workload_results(built):
    # Table 3's "CPU load avg" column: esxtop's 1-minute load, the mean of the kept samples
    # per host, then over hosts (the reference capture writes 0.99 TCP / 1.00 RDMA here)
    rows = built.query(
        "select transport, cpu_load_avg from marts.fct_workload_results "
        "where testbed = ? order by transport",
        [TESTBED],
    )
    assert [t for t, _ in rows] == ["rdma", "tcp"]
    for transport, load in rows:
        assert load == pytest.approx(built.expected_load[transport], abs=1e-9)
    assert built.expected_load["tcp"] == pytest.approx(0.99, abs=0.005)


def test_host_cpu_reaches_transport_cpu_efficiency(built):
    ((tcp_cpu, rdma_cpu, tcp_iops, tcp_per_cpu),) = built.query(
        "select tcp_cpu_util_pct, rdma_cpu_util_pct, tcp_iops, tcp_iops_per_cpu_pct "
        "from marts.transport_cpu_efficiency where testbed = ?",
        [TESTBED],
    )
    assert tcp_cpu == pytest.approx(built.expected_cpu["tcp"], abs=1e-9)
    assert rdma_cpu == pytest.approx(built.expected_cpu["rdma"], abs=1e-9)
    assert tcp_per_cpu == pytest.approx(tcp_iops / built.expected_cpu["tcp"])


def test_staging_carries_times_reliable(built):
    rows = built.query(
        "select times_reliable, times_note is null, count(*) from staging.stg_esxtop__captures "
        "group by all order by 1"
    )
    assert rows == [(False, False, 1), (True, True, 6)]


def test_excel_resave_minutes_are_one_sample_each(built):
    rows = _rows((built.tree / "excel-resave" / "esxtop-excel.csv").read_text())
    util = _column(rows, TOTAL_UTIL)
    by_minute: dict[str, list[float]] = {}
    for row in rows[1:]:
        by_minute.setdefault(row[0], []).append(float(row[util]))
    assert (len(rows) - 1, len(by_minute)) == (514, 48)
    got = built.query(
        "select strftime(sampled_at, '%-m/%-d/%Y %-H:%M'), cpu_util_pct, host_name "
        "from marts.fct_host_cpu_samples where testbed = 'excel-resave' order by sampled_at"
    )
    assert [(minute, host) for minute, _, host in got] == [(m, EXCEL_HOST) for m in by_minute]
    for (_, cpu, _), values in zip(got, by_minute.values(), strict=True):
        assert cpu == pytest.approx(statistics.fmean(values), abs=1e-9)
