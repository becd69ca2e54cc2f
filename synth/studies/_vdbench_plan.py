"""What the HCIBench Vdbench-mode studies share: one plan per study, one case per call.

Both Micron studies write cases the same way (`hcibench_case.case_name`, one `VdbenchRun`
starting 20-50 s after the case's epoch, per-VM stdouts that add up to the cluster figures,
HCIBench's `vdbench.cfg`); only the numbers differ, and those are the plan's fields.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass

from synth import hcibench_case, vdbench_text


@dataclass(frozen=True, slots=True)
class VdbenchPlan:
    """The fixed part of a study's Vdbench cases: 4K random on `disks` VMDKs per VM.

    The defaults are what both Micron reconstructions use: 8 VMDKs x 4 threads per VM, and runs
    shortened to `elapsed=300,warmup=60,interval=30` (the papers ran an hour after a 2 h
    warm-up) so the dataset loads in seconds; the totals are what the hour would have printed.
    """

    write_factor: float  # write response time / read response time in a mixed run
    cpu_sys_user_pct: tuple[float, float]  # range the per-VM `cpu% sys+u` is drawn from
    cpu_sys_pct: tuple[float, float]  # range the per-VM `cpu% sys` is drawn from
    disks: int = 8
    threads: int = 4
    elapsed_s: int = 300
    warmup_s: int = 60
    interval_s: int = 30
    layout: str = "50406"

    def case_name(self, *, read_pct: int, working_set_pct: int, epoch: int) -> str:
        return hcibench_case.case_name(
            "vdb",
            disks=self.disks,
            working_set_pct=working_set_pct,
            block_size="4k",
            read_pct=read_pct,
            random_pct=100,
            threads=self.threads,
            epoch=epoch,
        )

    def run(self, epoch: int, lun_gb: int, rng: random.Random) -> vdbench_text.VdbenchRun:
        """The run definition; Vdbench starts a little after HCIBench stamps the case."""
        started = dt.datetime.fromtimestamp(epoch, dt.UTC).replace(tzinfo=None)
        return vdbench_text.VdbenchRun(
            rd_name="run1",
            elapsed_s=self.elapsed_s,
            warmup_s=self.warmup_s,
            interval_s=self.interval_s,
            started_at=started + dt.timedelta(seconds=rng.randint(20, 50)),
            lun_count=self.disks,
            lun_size_bytes=lun_gb * 1024**3,
        )

    def vm_outputs(
        self,
        run: vdbench_text.VdbenchRun,
        vms: Sequence[str],
        cluster: tuple[float, float],
        read_pct: int,
        rng: random.Random,
    ) -> dict[str, str]:
        """Per-VM stdouts whose IOPS add up to, and whose IOPS-weighted mean response time
        is, the cluster (IOPS, mean latency ms)."""
        iops, lat = cluster
        outputs = {}
        shares = vdbench_text.split_cluster_totals(iops, lat, len(vms), rng)
        for vm, (vm_iops, vm_lat) in zip(vms, shares, strict=True):
            read_resp, write_resp = vdbench_text.direction_resp(vm_lat, read_pct, self.write_factor)
            totals = vdbench_text.VdbenchTotals(
                iops=vm_iops,
                read_pct=float(read_pct),
                resp_ms=vm_lat,
                read_resp_ms=read_resp,
                write_resp_ms=write_resp,
                cpu_sys_user_pct=round(rng.uniform(*self.cpu_sys_user_pct), 1),
                cpu_sys_pct=round(rng.uniform(*self.cpu_sys_pct), 1),
            )
            seed = rng.randint(0, 2**31)
            outputs[vm] = vdbench_text.render_stdout(run, totals, layout=self.layout, seed=seed)
        return outputs

    def params(self, read_pct: int, data_options: Sequence[str] = ()) -> str:
        """HCIBench's `vdbench.cfg` of one case."""
        return hcibench_case.vdbench_cfg(
            disks=self.disks,
            threads=self.threads,
            xfersize="4k",
            read_pct=read_pct,
            random_pct=100,
            elapsed_s=self.elapsed_s,
            warmup_s=self.warmup_s,
            interval_s=self.interval_s,
            data_options=data_options,
        )
