"""Micron tech brief "Huge Benefits With All-Flash and vSAN 6.5" (Rev. A 05/17), rebuilt as
HCIBench Vdbench output.

Spec: docs/reference_studies.md section 2. Writes, under `root/micron_vsan62_vs_65_brief/`,
20 HCIBench Vdbench-mode test cases: vSAN 6.2 and 6.5 x cache / capacity working set x 4K random
at 100/70/50/30/0% read, in folders `vsan62-cache/` ... with `run.yaml` labels
(`vsan_version`, `working_set`; testbed-wide labels in the study's `run.yaml`).

The brief prints only 6.5-vs-6.2 deltas (Tables 1-4); absolute 6.2 values are a generator choice
(BASE_62, `derived`), 6.5 = 6.2 x (1 + delta / 100). VM count, VMDKs and threads are not given:
chosen 8 VMs (2 per host) x 8 VMDKs x 4 threads, equal for both versions, so the only label that
differs between a 6.2 and a 6.5 result is `vsan_version`. Runs shortened to
`elapsed=300,warmup=60,interval=30`. Seeded (SEED); epochs in spring 2017.
"""

from __future__ import annotations

import random
from pathlib import Path

from synth import hcibench_case
from synth.published import figure
from synth.studies._vdbench_plan import VdbenchPlan

STUDY_ID = "micron_vsan62_vs_65_brief"
TESTBED = "micron-vsan62-vs-65"
SEED = 6265
READ_PCTS = (100, 70, 50, 30, 0)
HOSTS = ("10.65.0.11", "10.65.0.12", "10.65.0.13", "10.65.0.14")
VMS_PER_HOST = 2
FIRST_EPOCH = 1488326400  # 2017-03-01 00:00 UTC, before the brief's 05/17 revision
CASE_SPACING_S = 2 * 3600

# Tables 1-4 print the 6.5-vs-6.2 change per working set and read %: IOPS in Tables 1 (cache)
# and 3 (capacity), latency in Tables 2 and 4.
TABLES = {"cache": (1, 2), "capacity": (3, 4)}
# Not published: chosen (derived) vSAN 6.2 cluster IOPS and mean latency (ms) per working set
# and read %; the brief prints only the 6.5-vs-6.2 deltas.
BASE_62 = {
    "cache": {100: (320_000, 0.80), 70: (120_000, 2.13), 50: (95_000, 2.70),
              30: (70_000, 3.66), 0: (50_000, 5.12)},
    "capacity": {100: (250_000, 1.02), 70: (90_000, 2.84), 50: (70_000, 3.66),
                 30: (55_000, 4.65), 0: (40_000, 6.40)},
}  # fmt: skip
WORKING_SET_PCT = {"cache": 50, "capacity": 75}  # of the cache tier / of the vSAN capacity
LUN_GB = {"cache": 20, "capacity": 400}
PLAN = VdbenchPlan(
    write_factor=1.7,
    cpu_sys_user_pct=(15, 24),
    cpu_sys_pct=(5, 8),
)


def delta(working_set: str, read_pct: int) -> tuple[float, float]:
    """The published (IOPS %, latency %) change of 6.5 against 6.2."""
    iops_table, lat_table = TABLES[working_set]
    cell = f"{working_set}-r{read_pct}"
    return (
        figure(f"micron6265-table{iops_table}-{cell}-iops-delta"),
        figure(f"micron6265-table{lat_table}-{cell}-lat-delta"),
    )


def cell(version: str, working_set: str, read_pct: int) -> tuple[float, float]:
    """Cluster (IOPS, mean latency ms) of one result."""
    iops, lat = BASE_62[working_set][read_pct]
    if version == "6.2":
        return iops, lat
    d_iops, d_lat = delta(working_set, read_pct)
    return iops * (1 + d_iops / 100), lat * (1 + d_lat / 100)


STUDY_LABELS = (
    "# Micron vSAN 6.2 vs 6.5 tech brief (Rev. A 05/17), reconstructed from published deltas.\n"
    f"testbed: {TESTBED}\n"
    "nodes: 4\n"
    "architecture: OSA\n"
    "workload:\n"
    "  random_pct: 100\n"
    "  block_size: 4k\n"
)


def _case(folder: Path, version: str, working_set: str, read_pct: int, index: int) -> list[Path]:
    rng = random.Random(f"{SEED}-{version}-{working_set}-{read_pct}")
    epoch = FIRST_EPOCH + index * CASE_SPACING_S
    ws_pct = WORKING_SET_PCT[working_set]
    name = PLAN.case_name(read_pct=read_pct, working_set_pct=ws_pct, epoch=epoch)
    run = PLAN.run(epoch, LUN_GB[working_set], rng)
    vms = [f"hci-vdb-datastore-1001-{h}-{v}" for h in range(4) for v in range(1, VMS_PER_HOST + 1)]
    outputs = PLAN.vm_outputs(run, vms, cell(version, working_set, read_pct), read_pct, rng)
    vsan = hcibench_case.vsan_cfg(
        hcibench_case.VsanConfig(
            hosts=HOSTS,
            total_cache_disk_size_gb=6400,
            capacity_gb=83_820,
            free_space_gb=83_820 - 1_500 - 29 * index,
        )
    )
    settings = hcibench_case.hcibench_cfg(
        {
            "vc": "10.65.0.5",
            "cluster_name": "vSAN-Cluster",
            "easy_run": False,
            "clear_cache": True,
            "number_vm": len(vms),
            "number_data_disk": PLAN.disks,
            "size_data_disk": LUN_GB[working_set],
            "tool": "vdbench",
            "vm_prefix": "hci-vdb",
        }
    )
    resource = hcibench_case.ResourceUsage(
        cpu_usage_pct=round(rng.uniform(30, 55), 2), ram_usage_pct=round(rng.uniform(25, 32), 2)
    )
    summary = hcibench_case.vdbench_summary(outputs, resource=resource)
    return hcibench_case.write_case(
        folder, name, "vdbench", outputs, PLAN.params(read_pct), vsan, settings, summary
    )


def write(root: Path) -> list[Path]:
    study = root / STUDY_ID
    study.mkdir(parents=True, exist_ok=True)
    (study / "run.yaml").write_text(STUDY_LABELS, encoding="utf-8")
    written = [study / "run.yaml"]
    index = 0
    for version in ("6.2", "6.5"):
        for working_set in ("cache", "capacity"):
            folder = study / f"vsan{version.replace('.', '')}-{working_set}"
            folder.mkdir(exist_ok=True)
            labels = folder / "run.yaml"
            labels.write_text(
                f'vsan_version: "{version}"\nworking_set: {working_set}\n'
                f"working_set_pct: {WORKING_SET_PCT[working_set]}\n",
                encoding="utf-8",
            )
            written.append(labels)
            for read_pct in READ_PCTS:
                written += _case(folder, version, working_set, read_pct, index)
                index += 1
    return written
