"""Write the stdout of one Vdbench run as HCIBench keeps it (`<vm>.txt` in a test-case folder).

HCIBench runs `./vdbench -f <paramfile> > results.txt` in every worker VM and downloads it as
`<vm>.txt` (FORMATS.md 2.2 and 2.5). The text written here follows the real files in
`tests/fixtures/hcibench/results/hcib25-vdb/` and `tests/fixtures/vdbench/valid/`: the copyright
and `Vdbench distribution:` lines, `Starting RD=...`, a two-line column header, one line per
interval (warm-up intervals included, as Vdbench prints them) and the `avg_<first>-<last>` totals
line over the measured intervals, then `Vdbench execution completed successfully`.

Column layouts (`ingest.parsers.vdbench`): `50406` = rate, MB/sec, bytes/io, read pct, resp,
read resp, write resp, resp max, resp stddev, queue depth, cpu% sys+u, cpu% sys;
`50407` = the same with `read max` and `write max` instead of `resp max`.

The totals line prints exactly the numbers asked for (`VdbenchTotals`, rounded the way Vdbench
prints them: rate 2 decimals, MB/sec 2, resp 3); the interval lines move around them with
seeded AR(1) noise and a ramp-up in the warm-up (`interval_rate_factors`), the measured
intervals' rates averaging to the total to the printed precision. Pure functions:
no clock, no randomness that is not seeded by the caller.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import dataclass

VERSIONS = {
    "50406": ("vdbench50406", "Wed July 20 15:49:52 MDT 2016"),
    "50407": ("vdbench50407", "Tue June 05  9:49:29 MDT 2018"),
}


@dataclass(frozen=True, slots=True)
class VdbenchTotals:
    """What one VM's `avg_` line must print."""

    iops: float
    read_pct: float
    resp_ms: float
    read_resp_ms: float
    write_resp_ms: float
    xfersize_bytes: int = 4096
    resp_stddev_ms: float | None = None  # default: 0.45 x resp
    cpu_sys_user_pct: float = 9.5
    cpu_sys_pct: float = 3.8


@dataclass(frozen=True, slots=True)
class VdbenchRun:
    """One run definition: `rd=<rd_name>,...,elapsed=,warmup=,interval=` and its start time."""

    rd_name: str
    elapsed_s: int
    warmup_s: int
    interval_s: int
    started_at: dt.datetime  # local time of the `Starting RD=` line (Vdbench prints tod only)
    lun_count: int = 8
    lun_size_bytes: int = 6 * 1024**3
    param_path: str = "/root/vdb-param"

    @property
    def rd_text(self) -> str:
        """The `Starting RD=` text, as HCIBench copies it into `Run Def:`."""
        return (
            f"RD={self.rd_name}; I/O rate: Uncontrolled MAX; "
            f"elapsed={self.elapsed_s} warmup={self.warmup_s}; For loops: None"
        )


def mib_per_s(iops: float, xfersize_bytes: int) -> float:
    """Vdbench's MB/sec column: MiB/s (it prints `1024**2` under the header)."""
    return round(iops * xfersize_bytes / 1024**2, 2)


def _tod(moment: dt.datetime) -> str:
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _values(t: VdbenchTotals, layout: str) -> list[str]:
    stddev = t.resp_stddev_ms if t.resp_stddev_ms is not None else t.resp_ms * 0.45
    resp_max = t.resp_ms * 9.0
    queue = t.iops * t.resp_ms / 1000
    values = [
        f"{t.iops:.2f}",
        f"{mib_per_s(t.iops, t.xfersize_bytes):.2f}",
        f"{t.xfersize_bytes}",
        f"{t.read_pct:.2f}",
        f"{t.resp_ms:.3f}",
        f"{t.read_resp_ms:.3f}",
        f"{t.write_resp_ms:.3f}",
    ]
    if layout == "50406":
        values.append(f"{resp_max:.3f}")
    else:
        read_max = resp_max if t.read_pct > 0 else 0.0
        write_max = resp_max * 1.3 if t.read_pct < 100 else 0.0
        values += [f"{read_max:.2f}", f"{write_max:.2f}"]
    values += [
        f"{stddev:.3f}",
        f"{queue:.1f}",
        f"{t.cpu_sys_user_pct:.1f}",
        f"{t.cpu_sys_pct:.1f}",
    ]
    return values


def interval_rate_factors(
    warm: int,
    measured: int,
    interval_s: int,
    rng: random.Random,
    *,
    phi: float = 0.6,
    sigma: float = 0.02,
    ramp_depth: float = 0.25,
    ramp_tau_s: float = 10.0,
) -> list[float]:
    """Rate of each interval line relative to the `avg_` line: AR(1) noise (e_i = phi e_(i-1)
    + sqrt(1 - phi^2) sigma z_i: neighbouring intervals move together, as real ones do), the
    warm-up intervals also ramping up (`ramp_depth` below the plateau at the start, time
    constant `ramp_tau_s`). The measured intervals' noise is centred, so their factors
    average exactly 1 and the interval lines average to the totals (to print precision)."""
    noise, e = [], rng.gauss(0.0, sigma)
    for _ in range(warm + measured):
        noise.append(e)
        e = phi * e + (1 - phi**2) ** 0.5 * sigma * rng.gauss(0.0, 1.0)
    centre = sum(noise[warm:]) / measured if measured else 0.0
    factors = []
    for index, value in enumerate(noise):
        if index >= warm:
            factors.append(1 + value - centre)
            continue
        ramp = 1 - ramp_depth * math.exp(-(index + 0.5) * interval_s / ramp_tau_s)
        factors.append(max(0.05, ramp * (1 + value)))
    return factors


def _scaled(t: VdbenchTotals, iops_f: float, lat_f: float) -> VdbenchTotals:
    return VdbenchTotals(
        iops=t.iops * iops_f,
        read_pct=t.read_pct,
        resp_ms=t.resp_ms * lat_f,
        read_resp_ms=t.read_resp_ms * lat_f,
        write_resp_ms=t.write_resp_ms * lat_f,
        xfersize_bytes=t.xfersize_bytes,
        resp_stddev_ms=None if t.resp_stddev_ms is None else t.resp_stddev_ms * lat_f,
        cpu_sys_user_pct=t.cpu_sys_user_pct,
        cpu_sys_pct=t.cpu_sys_pct,
    )


def _line(moment: dt.datetime, label: str, values: list[str], widths: list[int]) -> str:
    cells = "".join(f"{v:>{w}}" for v, w in zip(values, widths, strict=True))
    return f"{_tod(moment)}{label:>10}{cells}"


_WIDTHS = {
    "50406": [11, 9, 8, 7, 9, 9, 9, 9, 9, 6, 6, 6],
    "50407": [11, 9, 8, 7, 9, 9, 9, 9, 9, 9, 6, 6, 6],
}
_HEADER = {
    "50406": (
        "  interval        i/o   MB/sec   bytes   read     resp     read    write     resp"
        "     resp queue  cpu%  cpu%",
        "                 rate  1024**2     i/o    pct     time     resp     resp      max"
        "   stddev depth sys+u   sys",
    ),
    "50407": (
        "  interval        i/o   MB/sec   bytes   read     resp     read    write     read"
        "    write     resp queue  cpu%  cpu%",
        "                 rate  1024**2     i/o    pct     time     resp     resp      max"
        "      max   stddev depth sys+u   sys",
    ),
}


def banner_lines(layout: str) -> list[str]:
    """The lines every Vdbench stdout opens with: copyright, distribution (version and build
    date of `layout`), documentation pointer, each block after two blank lines."""
    version, build = VERSIONS[layout]
    return [
        "",
        "",
        "Copyright (c) 2000, 2018, Oracle and/or its affiliates. All rights reserved.",
        f"Vdbench distribution: {version} {build}",
        "For documentation, see 'vdbench.pdf'.",
        "",
    ]


def render_stdout(
    run: VdbenchRun, totals: VdbenchTotals, *, layout: str = "50406", seed: int = 0
) -> str:
    """The whole `<vm>.txt` of one VM that ran one run definition to completion."""
    if layout not in VERSIONS:
        raise ValueError(f"layout must be one of {', '.join(VERSIONS)}")
    rng = random.Random(seed)
    warm = run.warmup_s // run.interval_s
    measured = run.elapsed_s // run.interval_s
    start = run.started_at
    tick = dt.timedelta(milliseconds=rng.randint(1, 40))
    lines = [*banner_lines(layout), f"{_tod(start)} input argument scanned: '-f{run.param_path}'"]
    for i in range(run.lun_count):
        size = run.lun_size_bytes
        lun = f"/dev/sd{chr(ord('a') + i)}"
        lines.append(
            f"{_tod(start + dt.timedelta(milliseconds=400 + i))} sd=sd{i + 1},lun={lun} "
            f"lun size: {size:,} bytes; {size / 1024**3:.4f} GB (1024**3); "
            f"{size / 1000**3:.4f} GB (1000**3)"
        )
    rd_start = start + dt.timedelta(seconds=1, milliseconds=rng.randint(0, 999))
    lines += ["", f"{_tod(rd_start)} Starting {run.rd_text}", ""]
    date = start.strftime("%b %d, %Y")
    head1, head2 = _HEADER[layout]
    lines += [f"{date}{head1}", f"{' ' * len(date)}{head2}"]
    widths = _WIDTHS[layout]
    iops_f = interval_rate_factors(warm, measured, run.interval_s, rng)
    # Little's law at a fixed queue depth: response time moves against the rate, and the
    # IOPS-weighted mean of 1/f over the measured intervals (whose f average 1) is exactly 1
    lat_f = [1 / f for f in iops_f]
    moment = rd_start
    for index in range(warm + measured):
        moment = rd_start + dt.timedelta(seconds=run.interval_s * (index + 1)) + tick
        values = _values(_scaled(totals, iops_f[index], lat_f[index]), layout)
        lines.append(_line(moment, str(index + 1), values, widths))
    avg_label = f"avg_{warm + 1}-{warm + measured}"
    lines.append(
        _line(moment + dt.timedelta(milliseconds=13), avg_label, _values(totals, layout), widths)
    )
    lines.append(
        f"{_tod(moment + dt.timedelta(seconds=1, milliseconds=197))} Vdbench execution completed "
        "successfully. Output directory: /root/vdbench/output "
    )
    return "\n".join(lines) + "\n"


def split_cluster_totals(
    iops: float, resp_ms: float, vm_count: int, rng: random.Random
) -> list[tuple[float, float]]:
    """Per-VM (IOPS, mean response ms) whose sum / IOPS-weighted mean give the cluster figures.

    IOPS are split in whole hundredths (Vdbench prints 2 decimals), so the per-VM rates add up
    to `iops` exactly; response times scatter by a few percent and are rescaled so that their
    IOPS-weighted mean is `resp_ms` before rounding to the 3 decimals Vdbench prints (the
    rounding moves the weighted mean by at most 0.0005 ms).
    """
    weights = [1 + rng.uniform(-0.04, 0.04) for _ in range(vm_count)]
    total_cents = round(iops * 100)
    shares = [int(total_cents * w / sum(weights)) for w in weights]
    for index in range(total_cents - sum(shares)):
        shares[index % vm_count] += 1
    rates = [cents / 100 for cents in shares]
    raw = [resp_ms * (1 + rng.uniform(-0.03, 0.03)) for _ in range(vm_count)]
    weighted = sum(r * x for r, x in zip(rates, raw, strict=True)) / sum(rates)
    resps = [round(x * resp_ms / weighted, 3) for x in raw]
    return list(zip(rates, resps, strict=True))


def direction_resp(resp_ms: float, read_pct: float, write_factor: float) -> tuple[float, float]:
    """Read and write response times whose read-%-weighted mean is `resp_ms`, writes being
    `write_factor` times slower; a direction without I/O prints 0.000 as Vdbench does."""
    if read_pct >= 100:
        return resp_ms, 0.0
    if read_pct <= 0:
        return 0.0, resp_ms
    p = read_pct / 100
    read = resp_ms / (p + (1 - p) * write_factor)
    return read, read * write_factor


# --------------------------------------------------------------------------------------------
# console output from per-interval I/O counts (the HCIBench fixtures)
#
# The fixtures model Vdbench one level lower than `render_stdout`: each interval is a count of
# reads and writes with their response times, printed with Vdbench's own printf formats, and
# the `avg_` line is computed from the intervals' totals as Vdbench does (pooled stddev
# included). `render_stdout` prints chosen totals instead; the two stay separate because each
# keeps the committed files it wrote byte for byte.

COUNT_HEADERS = {
    "50407": (
        "Nov 14, 2023    interval        i/o   MB/sec   bytes   read     resp     read    write"
        "     read    write     resp  queue  cpu%  cpu%",
        "                               rate  1024**2     i/o    pct     time     resp     resp"
        "      max      max   stddev  depth sys+u   sys",
    ),
    "50406": (
        "Nov 14, 2023  interval        i/o   MB/sec   bytes   read     resp     read    write"
        "     resp     resp queue  cpu%  cpu%",
        "                             rate  1024**2     i/o    pct     time     resp     resp"
        "      max   stddev depth sys+u   sys",
    ),
}


@dataclass(frozen=True, slots=True)
class IntervalCounts:
    """One VM's I/O in one reporting interval: counts and their response times (ms)."""

    reads: int
    writes: int
    secs: int
    block_size: int
    read_resp: float
    write_resp: float
    read_stddev: float
    write_stddev: float
    read_max: float
    write_max: float
    cpu_sys_user: float
    cpu_sys: float


@dataclass(frozen=True, slots=True)
class PrintedFigures:
    """The columns Vdbench prints for one interval or for the `avg_` over several."""

    iops: float
    mib_per_s: float
    bytes_per_io: int
    read_pct: float
    resp: float
    read_resp: float
    write_resp: float
    read_max: float
    write_max: float
    stddev: float
    queue_depth: float
    cpu_sys_user: float
    cpu_sys: float


# Vdbench's printf formats of an interval line; 50407 prints read max and write max where 50406
# prints one resp max.
COUNT_LINE_FORMATS = {
    "50407": "%12s %10.1f %8.2f %7d %6.2f %8.3f %8.3f %8.3f %8.2f %8.2f %8.3f %6.1f %5.1f %5.1f",
    "50406": "%10s %10.2f %8.2f %7d %6.2f %8.3f %8.3f %8.3f %8.3f %8.3f %5.1f %5.1f %5.1f",
}


def count_line(version: str, tod: str, label: str, f: PrintedFigures) -> str:
    """One interval (or `avg_`) line, printf-formatted as Vdbench formats it."""
    maxima = (f.read_max, f.write_max) if version == "50407" else (max(f.read_max, f.write_max),)
    values = (label, f.iops, f.mib_per_s, f.bytes_per_io, f.read_pct, f.resp, f.read_resp)
    values += (f.write_resp, *maxima, f.stddev, f.queue_depth, f.cpu_sys_user, f.cpu_sys)
    return tod + COUNT_LINE_FORMATS[version] % values


def tod_of_ms(ms: int) -> str:
    """`HH:MM:SS.mmm` of a time of day in milliseconds."""
    s, milli = divmod(ms, 1000)
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{milli:03d}"


def draw_intervals(
    rng: random.Random, n: int, interval_s: int, read_pct: int, bs: int, speed: float
) -> list[IntervalCounts]:
    """`n` seeded intervals of about `speed` IOPS, reads about `read_pct` % of them."""
    rows = []
    for _ in range(n):
        ios = int(rng.uniform(0.9, 1.1) * speed * interval_s)
        reads = (
            round(ios * rng.uniform(read_pct - 2, read_pct + 2) / 100)
            if 0 < read_pct < 100
            else ios * read_pct // 100
        )
        writes = ios - reads
        rresp = rng.uniform(0.35, 0.55) if reads else 0.0
        wresp = rng.uniform(0.9, 1.4) if writes else 0.0
        rows.append(
            IntervalCounts(
                reads=reads,
                writes=writes,
                secs=interval_s,
                block_size=bs,
                read_resp=rresp,
                write_resp=wresp,
                read_stddev=rresp * 0.6,
                write_stddev=wresp * 0.7,
                read_max=rresp * rng.uniform(8, 20) if reads else 0.0,
                write_max=wresp * rng.uniform(6, 15) if writes else 0.0,
                cpu_sys_user=rng.uniform(8, 14),
                cpu_sys=rng.uniform(3, 5),
            )
        )
    return rows


def printed_figures(rows: list[IntervalCounts]) -> PrintedFigures:
    """What Vdbench prints for one interval or the average over several (totals-based)."""
    reads = sum(r.reads for r in rows)
    writes = sum(r.writes for r in rows)
    ios = reads + writes
    secs = sum(r.secs for r in rows)
    rresp = sum(r.reads * r.read_resp for r in rows) / reads if reads else 0.0
    wresp = sum(r.writes * r.write_resp for r in rows) / writes if writes else 0.0
    resp = (reads * rresp + writes * wresp) / ios
    # Pooled standard deviation of all I/Os: E[x^2] - E[x]^2.
    ex2 = (
        sum(
            r.reads * (r.read_stddev**2 + r.read_resp**2)
            + r.writes * (r.write_stddev**2 + r.write_resp**2)
            for r in rows
        )
        / ios
    )
    return PrintedFigures(
        iops=ios / secs,
        mib_per_s=ios * rows[0].block_size / secs / 1024**2,
        bytes_per_io=rows[0].block_size,
        read_pct=100 * reads / ios,
        resp=resp,
        read_resp=rresp,
        write_resp=wresp,
        read_max=max(r.read_max for r in rows),
        write_max=max(r.write_max for r in rows),
        stddev=max(ex2 - resp**2, 0) ** 0.5,
        queue_depth=ios / secs * resp / 1000,
        cpu_sys_user=sum(r.cpu_sys_user for r in rows) / len(rows),
        cpu_sys=sum(r.cpu_sys for r in rows) / len(rows),
    )


def stdout_from_counts(
    version: str,
    rd: str,
    intervals: list[IntervalCounts],
    first: int,
    start_ms: int,
    finished: bool,
) -> str:
    """A VM's whole stdout: start-up lines, one line per interval (the column header repeated
    every 30), then, if `finished`, the `avg_<first>-<last>` line and the completion line."""
    t = start_ms
    lines = [
        *banner_lines(version),
        f"{tod_of_ms(t)} input argument scanned: '-f/root/vdb-param'",
        f"{tod_of_ms(t + 57)} Starting slave: /root/vdbench/vdbench SlaveJvm -m localhost -n "
        "localhost-10-231114-08.53.20.337 -l localhost-0 -p 5570   ",
        f"{tod_of_ms(t + 319)} Slave localhost-0 (pid  1321) connected to master 1298",
        f"{tod_of_ms(t + 342)} All slaves are now connected",
        f"{tod_of_ms(t + 385)} sd=sd1,lun=/dev/sda lun size: 10,737,418,240 bytes; 10.0000 GB "
        "(1024**3); 10.7374 GB (1000**3)",
        f"{tod_of_ms(t + 386)} sd=sd2,lun=/dev/sdb lun size: 10,737,418,240 bytes; 10.0000 GB "
        "(1024**3); 10.7374 GB (1000**3)",
        "",
    ]
    t += 1354
    lines += [f"{tod_of_ms(t)} Starting RD={rd}", "", *COUNT_HEADERS[version]]
    interval_s = intervals[0].secs
    for i, row in enumerate(intervals, start=1):
        if i > 1 and (i - 1) % 30 == 0:
            lines += ["", *COUNT_HEADERS[version]]
        t += interval_s * 1000 + (i * 7) % 13
        lines.append(count_line(version, tod_of_ms(t), str(i), printed_figures([row])))
    if finished:
        last = len(intervals)
        lines.append(
            count_line(
                version,
                tod_of_ms(t + 13),
                f"avg_{first}-{last}",
                printed_figures(intervals[first - 1 :]),
            )
        )
        lines.append(
            f"{tod_of_ms(t + 1210)} Vdbench execution completed successfully. Output "
            "directory: /root/vdbench/output "
        )
    return "\n".join(lines) + "\n"
