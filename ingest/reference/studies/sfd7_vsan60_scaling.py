"""VSAN 6.0 hybrid and all-flash scaling at SFD7 (`shared/seeds/004_56a0a7f91a0a7c4e.txt`).

Reconstructed, not measured: a blog post reading VMware's slides (spec:
docs/reference_studies.md section 5). VMware used IOmeter, which the warehouse does not read,
so the TOOL IS SUBSTITUTED: each run is written as fio JSON, one output per host (the load
generator of each host), in one folder per run with `result_per: folder`. Block size,
outstanding I/O and VM count are not given: 4K random (randread, or randrw 70/30) at queue
depth 32 per host is a generator choice. Runs are 60 s with 20 s status dumps, from
2015-02-20 (before the SFD7 session), each in its own 10-minute slot.

- `hybrid/<N>hosts-<r100|r70>`: testbed `sfd7-vsan60-hybrid`, 1 disk group, 4, 8, 16, 32 and
  64 hosts. The text's "~2.5 ms at 4 hosts" is kept as a 4-host run although the chart is said
  to start at 8 (INCONSISTENT row). 64 hosts: 3,845,000 IOPS (~3.8M and over 60K per host;
  the restated "3.5M" is then not met), 992,000 at 70/30 = 694,400 read + 297,600 write;
  100% read latency 2.25 ms everywhere, 70/30 from 2.5 to 3.1 ms.
- `hybrid/8hosts-2dg-<r100|r70>`: 2 disk groups, 116K and 31K IOPS per host; the host count
  is not printed, 8 chosen.
- `allflash/<1dg|2dg>-ws<GB>gb`: testbed `sfd7-vsan60-allflash`, 8 hosts, 70/30 (the blogger's
  reading), one run per working set. The working set is the `profile` label (`ws-100gb`...)
  and the free-form `working_set_gb`, so runs of one disk-group count differ in one label.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ingest.reference.fio_results import ResultTarget, write_result

STUDY_ID = "sfd7_vsan60_scaling"
START = dt.datetime(2015, 2, 20, 9, 0, tzinfo=dt.UTC)
RUNTIME_S = 60
SLOT_S = 600
IODEPTH = 32

STUDY_LABELS = (
    "# SFD7 VSAN 6.0 scaling (VMware slides read by a blogger), reconstructed from published\n"
    "# figures. IOmeter runs expressed as fio JSON (tool substituted).\n"
    'vsan_version: "6.0"\n'
    "architecture: OSA\n"
    "result_per: folder\n"
    "load_generator_substituted: iometer-as-fio\n"
)

# hosts -> ((IOPS per host, latency ms) at 100% read, same at 70/30)
HYBRID_1DG = {
    4: ((61_500, 2.25), (15_900, 2.5)),
    8: ((61_200, 2.25), (15_800, 2.6)),
    16: ((60_800, 2.25), (15_700, 2.75)),
    32: ((60_400, 2.25), (15_600, 2.9)),
    64: ((60_078.125, 2.25), (15_500, 3.1)),  # 3,845,000 and 992,000 in total
}
HYBRID_2DG_HOSTS = 8
HYBRID_2DG = ((116_000, 2.3), (31_000, 2.7))
# disk groups -> {working set GB: (cluster IOPS, latency ms)}; 8 hosts
ALLFLASH = {
    1: {100: (350_000, 1.8), 200: (325_000, 1.9), 400: (300_000, 2.0), 600: (280_000, 2.2)},
    2: {
        100: (700_000, 1.8),
        200: (630_000, 2.05),
        400: (550_000, 2.3),
        800: (500_000, 2.4),
        1200: (450_000, 2.5),
    },
}
ALLFLASH_HOSTS = 8


def _yaml(labels: dict) -> str:
    return "".join(f"{k}: {v}\n" for k, v in labels.items())


def _run(
    folder: Path,
    labels: dict,
    hosts: int,
    iops: float,
    latency: float,
    read_pct: int,
    end: int,
    seed: int,
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(_yaml(labels))
    target = ResultTarget(
        rw="randread" if read_pct == 100 else "randrw",
        rwmixread=None if read_pct == 100 else read_pct,
        block_size_bytes=4096,
        iodepth=IODEPTH,
        numjobs=1,
        vm_count=hosts,
        total_iops=iops,
        latency_ms=latency,
        runtime_s=RUNTIME_S,
        ended_at_epoch_s=end,
        seed=seed,
    )
    names = [f"iometer-host-{i:02d}" for i in range(1, hosts + 1)]
    return [folder / "run.yaml", *write_result(folder, target, names)]


def write(root: Path) -> list[Path]:
    base = root / STUDY_ID
    base.mkdir(parents=True, exist_ok=True)
    (base / "run.yaml").write_text(STUDY_LABELS)
    written = [base / "run.yaml"]
    start = int(START.timestamp())
    slot = 0
    seed = 7000

    def next_end() -> int:
        nonlocal slot
        slot += 1
        return start + slot * SLOT_S

    hybrid = {"testbed": "sfd7-vsan60-hybrid"}
    for hosts, mixes in HYBRID_1DG.items():
        for read_pct, (per_host, latency) in zip((100, 70), mixes, strict=True):
            seed += 1
            labels = {**hybrid, "nodes": hosts, "disk_groups": 1}
            folder = base / "hybrid" / f"{hosts}hosts-r{read_pct}"
            written += _run(
                folder, labels, hosts, per_host * hosts, latency, read_pct, next_end(), seed
            )
    for read_pct, (per_host, latency) in zip((100, 70), HYBRID_2DG, strict=True):
        seed += 1
        labels = {**hybrid, "nodes": HYBRID_2DG_HOSTS, "disk_groups": 2}
        folder = base / "hybrid" / f"{HYBRID_2DG_HOSTS}hosts-2dg-r{read_pct}"
        written += _run(
            folder,
            labels,
            HYBRID_2DG_HOSTS,
            per_host * HYBRID_2DG_HOSTS,
            latency,
            read_pct,
            next_end(),
            seed,
        )
    for disk_groups, sets in ALLFLASH.items():
        for ws_gb, (iops, latency) in sets.items():
            seed += 1
            labels = {
                "testbed": "sfd7-vsan60-allflash",
                "nodes": ALLFLASH_HOSTS,
                "disk_groups": disk_groups,
                "profile": f"ws-{ws_gb}gb",
                "working_set_gb": ws_gb,
            }
            folder = base / "allflash" / f"{disk_groups}dg-ws{ws_gb}gb"
            written += _run(folder, labels, ALLFLASH_HOSTS, iops, latency, 70, next_end(), seed)
    return written
