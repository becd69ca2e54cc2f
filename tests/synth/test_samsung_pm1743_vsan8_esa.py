"""Samsung PM1743 vSAN 8 ESA: per-VM fio outputs and esxtop captures give the published figures."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pytest
import yaml

from synth.studies import samsung_pm1743_vsan8_esa as study
from tests.synth._study_checks import generate_and_total, load_subset, seed_by_id

SEED = seed_by_id(study.STUDY_ID)
TABLE3 = {
    ("read", "tcp"): "rdma/randread-4k-tcp",
    ("read", "rdma"): "rdma/randread-4k-rdma",
    ("write", "tcp"): "rdma/randwrite-4k-tcp",
    ("write", "rdma"): "rdma/randwrite-4k-rdma",
    ("mixed", "tcp"): "rdma/seqmixed-128k-tcp",
    ("mixed", "rdma"): "rdma/seqmixed-128k-rdma",
}


def _util_pct(capture: Path) -> float:
    """Mean of `Physical Cpu(_Total)\\% Util Time` over the samples of one esxtop CSV."""
    with capture.open(newline="") as handle:
        rows = list(csv.reader(handle))
    counter = r"Physical Cpu(_Total)\% Util Time"
    column = next(i for i, h in enumerate(rows[0]) if h.endswith(counter))
    values = [float(r[column]) for r in rows[1:] if r[column].strip()]
    return sum(values) / len(values)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("samsung")
    totals = generate_and_total(study, root / "data")
    base = root / "data" / study.STUDY_ID
    # the mart's host CPU: the mean over the hosts' captures of one run (equal sample counts)
    cpu = {}
    for folder in sorted({p.parent for p in base.rglob("esxtop-*.csv")}):
        hosts = [_util_pct(p) for p in sorted(folder.glob("esxtop-*.csv"))]
        cpu[str(folder.relative_to(base))] = sum(hosts) / len(hosts)
    return root / "data", totals, cpu


def test_rdma_and_raid_folders_load_without_rejections(tmp_path):
    study.write(tmp_path / "data")
    keep = {"rdma/randwrite-4k-rdma", "raid/raid5", "jbof/randread-4k"}
    assert load_subset(tmp_path / "data" / study.STUDY_ID, keep, tmp_path / "w.duckdb") == 0
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        formats = dict(
            con.execute("select format, count(*) from raw.source_files group by all").fetchall()
        )
    finally:
        con.close()
    # 15 + 18 + 15 fio outputs, 3 esxtop captures, 1 capacity observation
    assert formats.get("fio") == 48 and formats.get("esxtop") == 3, formats
    assert sum(formats.values()) == 52, formats


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


@pytest.mark.parametrize(
    ("profile", "figure_id"),
    [
        pytest.param("raid1", "samsung-fig10-raid1-capacity-multiplier", id="raid1"),
        pytest.param("raid5", "samsung-text-raid5-capacity-multiplier", id="raid5"),
    ],
)
def test_figure10_capacity_is_primary_plus_redundancy(generated, profile, figure_id):
    data, _, _ = generated
    folder = data / study.STUDY_ID / "raid" / profile / "capacity"
    usage = json.loads((folder / "space_usage.json").read_text())
    vdisk = next(
        s for s in usage["spaceDetail"]["spaceUsageByObjectType"] if s["objType"] == "vdisk"
    )
    # 5.28 TB primary (printed, decimal bytes) plus 5.28 (RAID-1) or 2.64 (RAID-5) TB redundancy
    assert vdisk["primaryCapacityB"] == 5_280_000_000_000
    assert vdisk["overheadB"] == {"raid1": 5_280_000_000_000, "raid5": 2_640_000_000_000}[profile]
    multiplier = vdisk["usedB"] / vdisk["primaryCapacityB"]
    assert multiplier == pytest.approx(_value(figure_id), abs=0.005)
    assert usage["efficientCapacity"] is None  # no space efficiency on these runs
    assert "captured_at" in yaml.safe_load((folder / "run.yaml").read_text())
