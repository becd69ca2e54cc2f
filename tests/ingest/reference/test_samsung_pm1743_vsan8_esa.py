"""Samsung PM1743 vSAN 8 ESA: per-VM fio outputs and esxtop captures give the published figures."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ingest.reference.studies import samsung_pm1743_vsan8_esa as study
from tests.ingest.reference._study_helpers import digest, generate_and_load, seed_rows

SEED = seed_rows(study.STUDY_ID)
TABLE3 = {
    ("read", "tcp"): "rdma/randread-4k-tcp",
    ("read", "rdma"): "rdma/randread-4k-rdma",
    ("write", "tcp"): "rdma/randwrite-4k-tcp",
    ("write", "rdma"): "rdma/randwrite-4k-rdma",
    ("mixed", "tcp"): "rdma/seqmixed-128k-tcp",
    ("mixed", "rdma"): "rdma/seqmixed-128k-rdma",
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("samsung")
    totals = generate_and_load(study, root / "data", root / "w.duckdb")
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    cpu = dict(
        con.execute(
            """select s.folder, avg(v.value)
            from raw.esxtop_samples v
            join raw.esxtop_counters k
              on k._source_file_id = v._source_file_id and k.counter_id = v.counter_id
            join raw.source_files s on s.source_file_id = v._source_file_id
            where k.object_group = 'Physical Cpu' and k.instance = '_Total'
              and k.counter = '% Util Time'
            group by s.folder"""
        ).fetchall()
    )
    con.close()
    base = root / "data" / study.STUDY_ID
    cpu = {str(Path(k).relative_to(base)): v for k, v in cpu.items()}
    return root / "data", totals, cpu


def _value(figure_id: str) -> float:
    return float(SEED[figure_id]["value"])


@pytest.mark.parametrize(
    ("workload", "transport"), list(TABLE3), ids=[f"{w}-{t}" for w, t in TABLE3]
)
def test_table3_iops_and_latency_add_up_from_15_vms(generated, workload, transport):
    _, totals, _ = generated
    result = totals[TABLE3[(workload, transport)]]
    assert result["outputs"] == 15
    assert result["iops"] == pytest.approx(
        _value(f"samsung-table3-{workload}-{transport}-iops"), abs=0.5
    )
    latency = _value(f"samsung-table3-{workload}-{transport}-latency")
    assert result["latency_ms"] == pytest.approx(latency, abs=0.005)


@pytest.mark.parametrize(
    ("workload", "transport"), list(TABLE3), ids=[f"{w}-{t}" for w, t in TABLE3]
)
def test_host_cpu_matches_the_text_percentages(generated, workload, transport):
    _, _, cpu = generated
    expected = _value(f"samsung-text-rdma-{workload}-{transport}-cpu")
    assert cpu[TABLE3[(workload, transport)]] == pytest.approx(expected, abs=0.005)


@pytest.mark.parametrize(
    ("figure_id", "folder", "column"),
    [
        pytest.param(
            "samsung-fig5-read-30vm-iops", "vm-sweep/randread-4k-30vms", "iops", id="1.49M"
        ),
        pytest.param(
            "samsung-fig6-mixed-30vm-throughput",
            "vm-sweep/seqmixed-128k-30vms",
            "mb_s",
            id="25.45GB/s",
        ),
        pytest.param(
            "samsung-fig7-seqread-64k-throughput",
            "block-size/seqread-64k",
            "mb_s",
            id="64k-18.4GB/s",
        ),
        pytest.param(
            "samsung-fig7-seqread-128k-throughput",
            "block-size/seqread-128k",
            "mb_s",
            id="128k-18.2GB/s",
        ),
        pytest.param("samsung-fig10-raid1-throughput", "raid/raid1", "mb_s", id="raid1"),
        pytest.param("samsung-fig10-raid5-throughput", "raid/raid5", "mb_s", id="raid5"),
    ],
)
def test_printed_peaks_add_up(generated, figure_id, folder, column):
    _, totals, _ = generated
    assert totals[folder][column] == pytest.approx(_value(figure_id), abs=5)


def test_printed_deltas(generated):
    _, totals, _ = generated

    def delta(new: str, old: str, column: str = "iops") -> float:
        return 100 * (totals[new][column] / totals[old][column] - 1)

    assert delta("vm-sweep/randwrite-4k-45vms", "vm-sweep/randwrite-4k-30vms") == pytest.approx(
        _value("samsung-fig5-write-45vm-iops-delta"), abs=0.5
    )
    assert delta("raid/raid5", "raid/raid1", "mb_s") == pytest.approx(
        _value("samsung-fig10-raid5-throughput-delta"), abs=0.005
    )
    assert delta(
        "storage-pool/more-disks-per-host-seqwrite-4k",
        "storage-pool/fewer-disks-per-host-seqwrite-4k",
    ) == pytest.approx(_value("samsung-fig11-seqwrite-4k-iops-delta"), abs=0.5)
    for name, figure in (
        ("randread-4k", "read"),
        ("randwrite-4k", "write"),
        ("seqmixed-128k", "mixed"),
    ):
        gap = delta(f"jbof/{name}", f"vm-sweep/{name}-15vms")
        assert gap == pytest.approx(_value(f"samsung-fig16-jbof-{figure}-delta"), abs=0.5)


def test_generating_twice_gives_identical_bytes(generated, tmp_path):
    first, _, _ = generated
    study.write(tmp_path)
    assert digest(tmp_path / study.STUDY_ID) == digest(first / study.STUDY_ID)
