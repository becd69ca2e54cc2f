"""Samsung PM1743 on vSAN 8.0 U2 ESA (`shared/seeds/003_0726862ee5539ce5.txt`).

Reconstructed, not measured: every file is derived from the paper's printed figures (spec:
docs/reference_studies.md section 4). The paper ran fio directly in worker VMs (libaio,
direct, QD 8 x 8 jobs = 64 outstanding I/O per VM, group reporting), so each test is one
folder with one fio JSON per VM and a `run.yaml` with `result_per: folder`.

Tests written (one folder each, all on testbed `samsung-pm1743-vsan8-esa`, 3 nodes, ESA,
`vsan_version: 8.0u2`):

- `vm-sweep/<workload>-<N>vms`: 4K random read, 4K random write, 128K sequential 70/30 at
  3, 15, 30 and 45 VMs. 30 VMs: 1,490,000 read IOPS and 25,450 MB/s mixed; write at 45 VMs
  = 1.08 x 30 VMs; latency rises steeply past 15 VMs. The paper does not state the policy:
  the sweep is labelled with the ESA default used elsewhere (RAID-5, FTT 1, thin) and no
  transport, so it is also the local-NVMe reference for the JBOF gaps (Figure 16).
- `block-size/seqread-<bs>`: 3 VMs, 4K..1M sequential read; 64K = 18,400 MB/s, 128K =
  18,200 MB/s, others chosen (rising to 64K, falling from 256K); latency by Little's law.
- `raid/<raid1|raid5>`: 18 VMs, 64K sequential read, 17,900 and 17,700 MB/s (-1.12%), each
  with a `capacity.yaml` of Figure 10 (5.28 TB primary + 5.28 / 2.64 TB redundancy).
- `storage-pool/<fewer|more>-disks-per-host-<workload>`: 9 VMs; 4K sequential write +5%
  with more devices (the device counts are not printed: 2 and 4 chosen, free-form label
  `devices_per_host`), 128K mixed flat. The pool size is the `profile` label.
- `rdma/<workload>-<tcp|rdma>`: Table 3, 15 VMs: IOPS exact, latency exact; plus one esxtop
  capture per host whose `% Util Time` averages to the TEXT's CPU percentages (99/99,
  64.5/54, 75/57) and whose `Cpu Load (1 Minute Avg)` averages to Table 3's fractions.
- `jbof/<workload>`: storage `jbof`, 23% / 45% / 58% below the 15-VM sweep results.

Choices where the paper disagrees with itself (INCONSISTENT rows of the seed): IOPS are
matched, so Table 3's BW column (2.4% above IOPS x block size) is not; CPU % follows the
text, so the derived RDMA efficiency gains (computed from Table 3's fractions) do not match
for read and write. Runs are 60 s of fio with 20 s status dumps (the paper does not give
durations), each in its own 10-minute slot from 2024-01-15 10:00 UTC so the esxtop samples of
one run never fall in another run's window.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ingest.reference import capacity_yaml
from ingest.reference.esxtop_csv import HostCapture, capture_text
from ingest.reference.fio_results import ResultTarget, ios_for_throughput, write_result

STUDY_ID = "samsung_pm1743_vsan8_esa"
TESTBED = "samsung-pm1743-vsan8-esa"
HOSTS = ("esx-r750-01", "esx-r750-02", "esx-r750-03")
START = dt.datetime(2024, 1, 15, 10, 0, tzinfo=dt.UTC)
RUNTIME_S = 60
SLOT_S = 600
QD, JOBS = 8, 8  # 64 outstanding I/O per VM

STUDY_LABELS = (
    "# Samsung PM1743 / vSAN 8.0 U2 ESA white paper, reconstructed from published figures.\n"
    f"testbed: {TESTBED}\n"
    "nodes: 3\n"
    "vsan_version: 8.0u2\n"
    "architecture: ESA\n"
    "storage: local-nvme\n"
    "result_per: folder\n"
)
RAID5_THIN = {"ftm": "RAID-5", "ftt": 1, "osr_pct": 0}

# workload name -> (fio rw, rwmixread, block size)
WORKLOADS = {
    "randread-4k": ("randread", None, 4096),
    "randwrite-4k": ("randwrite", None, 4096),
    "seqmixed-128k": ("rw", 70, 131072),
}

# VM sweep: VMs -> (IOPS or MB/s for mixed, latency ms). Printed: 30-VM read IOPS, 30-VM mixed
# MB/s, write 45 = 1.08 x 30; the rest is chosen to fit the drawn curves.
SWEEP = {
    "randread-4k": {
        3: (520_000, 0.37),
        15: (1_402_000, 0.68),
        30: (1_490_000, 1.29),
        45: (1_470_000, 1.96),
    },
    "randwrite-4k": {
        3: (150_000, 1.28),
        15: (322_000, 2.98),
        30: (340_000, 5.65),
        45: (367_200, 7.84),
    },
    "seqmixed-128k": {3: (9_800, 5.1), 15: (17_900, 6.9), 30: (25_450, 9.9), 45: (24_600, 15.2)},
}
# Block-size sweep: MB/s per block size (64K and 128K printed).
BLOCK_SIZES = {
    4096: 2_150,
    8192: 4_200,
    16384: 8_100,
    32768: 13_900,
    65536: 18_400,
    131072: 18_200,
    262144: 17_100,
    524288: 16_300,
    1048576: 15_800,
}
RAID = {"raid1": ("RAID-1", 17_900, 4.1), "raid5": ("RAID-5", 17_700, 4.2)}
# Figure 10's capacity view: primary data and the redundancy each policy adds (TB as printed)
FIGURE10_PRIMARY_TB = 5.28
FIGURE10_REDUNDANCY_TB = {"RAID-1": 5.28, "RAID-5": 2.64}
# Storage pool: devices per host -> (4K seq write IOPS, 128K mixed MB/s)
POOL = {"fewer-disks-per-host": (2, 262_000, 15_200), "more-disks-per-host": (4, 275_100, 15_260)}
# Table 3: (IOPS, latency ms, text CPU %, Table 3 CPU load fraction)
TABLE3 = {
    ("randread-4k", "tcp"): (1_414_282, 0.74, 99.0, 0.99),
    ("randread-4k", "rdma"): (1_441_071, 0.35, 99.0, 1.00),
    ("randwrite-4k", "tcp"): (328_966, 2.94, 64.5, 0.65),
    ("randwrite-4k", "rdma"): (345_707, 1.39, 54.0, 0.47),
    ("seqmixed-128k", "tcp"): (134_984, 16.6, 75.0, 0.75),
    ("seqmixed-128k", "rdma"): (170_668, 6.59, 57.0, 0.57),
}
JBOF_GAP_PCT = {"randread-4k": 23, "randwrite-4k": 45, "seqmixed-128k": 58}
# Per-host spread of the CPU figures around the 3-host mean (sums to zero).
HOST_CPU_SPREAD = (-0.4, 0.2, 0.2)


def _yaml(labels: dict) -> str:
    lines = []
    for key, value in labels.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines += [f"  {k}: {v}" for k, v in value.items()]
        elif isinstance(value, list):
            lines.append(f"{key}: [{', '.join(value)}]")
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"


def _vm_names(count: int) -> list[str]:
    return [f"vm-{i:02d}" for i in range(1, count + 1)]


class _Slots:
    """Hands out disjoint run windows, one per test, in writing order."""

    def __init__(self) -> None:
        self.next = 0

    def end_of_next(self) -> int:
        self.next += 1
        return int(START.timestamp()) + self.next * SLOT_S


def _target(
    name: str,
    vms: int,
    value: float,
    latency: float,
    end: int,
    seed: int,
    block_size: int | None = None,
    rw: str | None = None,
) -> ResultTarget:
    wl_rw, mix, bs = WORKLOADS.get(name, (rw, None, block_size))
    bs = block_size or bs
    rw = rw or wl_rw
    # sequential and mixed results are printed as MB/s, 4K random ones as IOPS
    iops = ios_for_throughput(value, bs, RUNTIME_S) / RUNTIME_S if rw in ("read", "rw") else value
    return ResultTarget(
        rw=rw,
        rwmixread=mix,
        block_size_bytes=bs,
        iodepth=QD,
        numjobs=JOBS,
        vm_count=vms,
        total_iops=iops,
        latency_ms=latency,
        runtime_s=RUNTIME_S,
        ended_at_epoch_s=end,
        seed=seed,
    )


def _test(folder: Path, labels: dict, target: ResultTarget) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(_yaml(labels))
    return [folder / "run.yaml", *write_result(folder, target, _vm_names(target.vm_count))]


def _esxtop(folder: Path, end: int, cpu_pct: float, load: float, seed: int) -> list[Path]:
    """One capture per host: 5 s samples from 55 s to 5 s before the run's end."""
    written = []
    for i, host in enumerate(HOSTS):
        # spread the hosts around the mean unless that would pass 100 %
        spread = HOST_CPU_SPREAD[i] if cpu_pct + max(HOST_CPU_SPREAD) <= 100 else 0.0
        load_spread = spread / 100 if load + max(HOST_CPU_SPREAD) / 100 <= 1 else 0.0
        capture = HostCapture(
            host=f"{host}.lab.local",
            util_pct=round(cpu_pct + spread, 2),
            cpu_load_1min=round(load + load_spread, 3),
            pcpu_count=96,
            devices=("t10.NVMe____SAMSUNG_MZWLO3T8HCLS_01", "t10.NVMe____SAMSUNG_MZWLO3T8HCLS_02"),
            nics=("vmnic4", "vmnic5"),
        )
        first = dt.datetime.fromtimestamp(end - RUNTIME_S + 5, dt.UTC)
        text = capture_text(
            [capture], first_sample_at=first, interval_s=5, samples=11, seed=seed * 10 + i
        )
        path = folder / f"esxtop-{host}.csv"
        path.write_text(text)
        written.append(path)
    return written


def _capacity(folder: Path, ftm: str, end: int) -> Path:
    """Figure 10's capacity view of the RAID test: 5.28 TB of primary data plus the policy's
    redundancy (5.28 TB mirrored, 2.64 TB parity). No space efficiency is enabled, so used
    before and after are the same (ratio 1.00x, a generator choice: the paper shows none)."""
    used = round(FIGURE10_PRIMARY_TB + FIGURE10_REDUNDANCY_TB[ftm], 2)
    observation = capacity_yaml.CapacityObservation(
        used_before=used,
        used_after=used,
        unit="TB",
        ratio_reported="1.00x",
        captured_at=dt.datetime.fromtimestamp(end, dt.UTC),
        testbed=TESTBED,
        ftm=ftm,
        ftt=1,
        source_document=STUDY_ID,
        notes=f"Figure 10: {FIGURE10_PRIMARY_TB} TB primary + "
        f"{FIGURE10_REDUNDANCY_TB[ftm]} TB redundancy ({ftm}, printed)",
    )
    path = folder / "capacity.yaml"
    path.write_text(capacity_yaml.render(observation, "Reconstructed from published figures."))
    return path


def write(root: Path) -> list[Path]:
    base = root / STUDY_ID
    base.mkdir(parents=True, exist_ok=True)
    (base / "run.yaml").write_text(STUDY_LABELS)
    written = [base / "run.yaml"]
    slots = _Slots()
    seed = 4300
    for name, points in SWEEP.items():
        for vms, (value, latency) in points.items():
            seed += 1
            labels = {**RAID5_THIN, "workload": {"outstanding_io": vms * QD * JOBS}}
            target = _target(name, vms, value, latency, slots.end_of_next(), seed)
            written += _test(base / "vm-sweep" / f"{name}-{vms}vms", labels, target)
    for bs, mb_s in BLOCK_SIZES.items():
        seed += 1
        iops = ios_for_throughput(mb_s, bs, RUNTIME_S) / RUNTIME_S
        latency = round(3 * QD * JOBS / iops * 1000, 3)  # Little's law at 192 outstanding
        labels = {"workload": {"outstanding_io": 3 * QD * JOBS}}
        target = _target("", 3, mb_s, latency, slots.end_of_next(), seed, bs, "read")
        written += _test(base / "block-size" / f"seqread-{bs // 1024}k", labels, target)
    for profile, (ftm, mb_s, latency) in RAID.items():
        seed += 1
        labels = {
            "profile": profile,
            "profile_order": list(RAID),
            "ftm": ftm,
            "ftt": 1,
            "osr_pct": 100,
            "workload": {"outstanding_io": 18 * QD * JOBS},
        }
        end = slots.end_of_next()
        target = _target("", 18, mb_s, latency, end, seed, 65536, "read")
        written += _test(base / "raid" / profile, labels, target)
        written.append(_capacity(base / "raid" / profile, ftm, end))
    for profile, (devices, write_iops, mixed_mb_s) in POOL.items():
        common = {
            **RAID5_THIN,
            "profile": profile,
            "profile_order": list(POOL),
            "devices_per_host": devices,
            "workload": {"outstanding_io": 9 * QD * JOBS},
        }
        seed += 1
        target = _target(
            "", 9, write_iops, 2.1 * 262_000 / write_iops, slots.end_of_next(), seed, 4096, "write"
        )
        written += _test(base / "storage-pool" / f"{profile}-seqwrite-4k", common, target)
        seed += 1
        target = _target("seqmixed-128k", 9, mixed_mb_s, 4.9, slots.end_of_next(), seed)
        written += _test(base / "storage-pool" / f"{profile}-seqmixed-128k", common, target)
    for (name, transport), (iops, latency, cpu_pct, load) in TABLE3.items():
        seed += 1
        end = slots.end_of_next()
        labels = {
            **RAID5_THIN,
            "transport": transport,
            "workload": {"outstanding_io": 15 * QD * JOBS},
        }
        rw, mix, bs = WORKLOADS[name]
        target = ResultTarget(
            rw=rw,
            rwmixread=mix,
            block_size_bytes=bs,
            iodepth=QD,
            numjobs=JOBS,
            vm_count=15,
            total_iops=iops,
            latency_ms=latency,
            runtime_s=RUNTIME_S,
            ended_at_epoch_s=end,
            seed=seed,
        )
        folder = base / "rdma" / f"{name}-{transport}"
        written += _test(folder, labels, target)
        written += _esxtop(folder, end, cpu_pct, load, seed)
    for name, gap in JBOF_GAP_PCT.items():
        seed += 1
        local, local_latency = SWEEP[name][15]
        labels = {**RAID5_THIN, "storage": "jbof", "workload": {"outstanding_io": 15 * QD * JOBS}}
        value = local * (100 - gap) / 100
        target = _target(
            name, 15, value, local_latency * 100 / (100 - gap), slots.end_of_next(), seed
        )
        written += _test(base / "jbof" / name, labels, target)
    return written
