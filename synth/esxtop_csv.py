r"""Write small esxtop batch-mode captures (`esxtop -b -d <s> -n <N>`) with chosen host CPU.

Format source: esxtop's batch output as seen in the real captures under
`shared/samples/esxtop/` (e.g. `rach-sharp_esxtopd__small-esxtop-data.csv`) and described in
FORMATS.md: a Windows perfmon (PDH) CSV, every cell double-quoted, a header row whose first
cell is `(PDH-CSV 4.0) (UTC)(0)` and whose other cells name a counter as
`\\<host>\<Group>(<instance>)\<Counter>`, then one row per sample whose first cell is the
sample time `MM/DD/YYYY HH:MM:SS` (UTC, as the `(UTC)(0)` bias says). The column order follows
the real capture: load averages, per-PCPU then `_Total` `% Processor Time`, the same for
`% Util Time`, a few memory counters, then physical disks and NICs.

What the warehouse reads from it: `Physical Cpu(_Total)\% Util Time` is the host CPU
(`int_host_samples_unioned`), averaged over the samples inside a result's time window on the
same testbed. The writer makes every host's `_Total` samples average exactly (to the 2
printed decimals) to the host's chosen utilisation, and the per-PCPU columns average to the
`_Total` cell of their row, as esxtop's do. `Physical Cpu Load\Cpu Load (1 Minute Avg)` is
written with its own chosen value (a fraction of capacity, as esxtop prints it).

Pure: `capture_text` returns the CSV text; the caller writes it.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

PDH_HEADER = "(PDH-CSV 4.0) (UTC)(0)"
SAMPLE_TIME_FORMAT = "%m/%d/%Y %H:%M:%S"  # esxtop's own stamp; Excel re-saves it shorter


def counter_path(host: str, group: str | None, instance: str | None, counter: str) -> str:
    """A header cell: `\\\\<host>\\<Group>(<instance>)\\<Counter>` (no parentheses without an
    instance, e.g. `Memory\\Free MBytes`)."""
    object_part = f"{group}({instance})" if instance is not None else f"{group}"
    return f"\\\\{host}\\{object_part}\\{counter}"


@dataclass(frozen=True, slots=True)
class HostCapture:
    """One host's chosen figures for the capture."""

    host: str
    util_pct: float  # mean of `Physical Cpu(_Total)\% Util Time` over the samples
    cpu_load_1min: float  # `Physical Cpu Load\Cpu Load (1 Minute Avg)`, fraction
    pcpu_count: int = 8
    devices: tuple[str, ...] = ("naa.0001",)
    nics: tuple[str, ...] = ("vmnic0",)
    # Storage throughput the devices show, split evenly over them (MB/s).
    disk_mb_read_per_s: float = 0.0
    disk_mb_written_per_s: float = 0.0


def _symmetric_offsets(count: int, spread: float, rng: random.Random) -> list[float]:
    """`count` offsets in hundredths that sum to exactly zero (pairs of +d, -d)."""
    offsets = []
    for _ in range(count // 2):
        d = round(rng.uniform(0, spread), 2)
        offsets += [d, -d]
    if count % 2:
        offsets.append(0.0)
    rng.shuffle(offsets)
    return offsets


def _bounded_spread(mean: float, spread: float) -> float:
    # keep every cell within 0-100 % while the mean stays exact
    return max(0.0, min(spread, 100.0 - mean, mean))


# (group, instance, counter) of the columns each host gets, in the real capture's order
def _host_columns(h: HostCapture) -> list[tuple[str, str | None, str]]:
    columns: list[tuple[str, str | None, str]] = [
        ("Physical Cpu Load", None, f"Cpu Load ({n} Minute Avg)") for n in (1, 5, 15)
    ]
    for counter in ("% Processor Time", "% Util Time"):
        columns += [("Physical Cpu", str(i), counter) for i in range(h.pcpu_count)]
        columns.append(("Physical Cpu", "_Total", counter))
    columns += [("Memory", None, c) for c in ("Machine MBytes", "Kernel MBytes", "Free MBytes")]
    for dev in h.devices:
        for c in ("Commands/sec", "MBytes Read/sec", "MBytes Written/sec"):
            columns.append(("Physical Disk SCSI Device", dev, c))
    for nic in h.nics:
        for c in ("Packets Transmitted/sec", "MBits Transmitted/sec", "MBits Received/sec"):
            columns.append(("Network Port", f"vSwitch0:{nic}", c))
    return columns


def _header(hosts: list[HostCapture]) -> list[str]:
    cells = [PDH_HEADER]
    for h in hosts:
        cells += [counter_path(h.host, *column) for column in _host_columns(h)]
    return cells


def _host_rows(h: HostCapture, samples: int, rng: random.Random) -> list[list[str]]:
    """Cells of one host for every sample (without the timestamp)."""
    total_offsets = _symmetric_offsets(samples, _bounded_spread(h.util_pct, 0.6), rng)
    rows = []
    for s in range(samples):
        util = round(h.util_pct + total_offsets[s], 2)
        proc = round(util * 0.93, 2)  # %Processor Time runs below %Util Time with HT on
        load1 = h.cpu_load_1min
        cells = [f"{load1:.2f}", f"{load1 * 0.98:.2f}", f"{load1 * 0.9:.2f}"]
        for value in (proc, util):
            pcpu = _symmetric_offsets(h.pcpu_count, _bounded_spread(value, 1.5), rng)
            cells += [f"{value + d:.2f}" for d in pcpu] + [f"{value:.2f}"]
        cells += ["524032", "3911", f"{180000 + rng.randint(0, 500)}"]
        per_dev = len(h.devices) or 1
        for _ in h.devices:
            rd = h.disk_mb_read_per_s / per_dev
            wr = h.disk_mb_written_per_s / per_dev
            cmds = (rd + wr) * 1_000_000 / 65536
            cells += [f"{cmds:.2f}", f"{rd:.2f}", f"{wr:.2f}"]
        for _ in h.nics:
            mbits = (h.disk_mb_read_per_s + h.disk_mb_written_per_s) * 8 / 3
            cells += [f"{mbits * 1e6 / 8 / 9000:.2f}", f"{mbits:.2f}", f"{mbits * 0.98:.2f}"]
        rows.append(cells)
    return rows


def capture_text(
    hosts: list[HostCapture],
    *,
    first_sample_at: dt.datetime,
    interval_s: int,
    samples: int,
    seed: int,
) -> str:
    """The capture as esxtop writes it: quoted cells, CRLF-free `\\n` lines, UTC stamps."""
    rng = random.Random(seed)
    per_host = [_host_rows(h, samples, rng) for h in hosts]
    lines = [",".join(f'"{c}"' for c in _header(hosts))]
    for s in range(samples):
        at = first_sample_at + dt.timedelta(seconds=s * interval_s)
        cells = [at.strftime(SAMPLE_TIME_FORMAT)]
        for rows in per_host:
            cells += rows[s]
        lines.append(",".join(f'"{c}"' for c in cells))
    return "\n".join(lines) + "\n"
