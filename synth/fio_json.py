"""Write fio 3.x JSON output the way HCIBench's worker VMs leave it.

HCIBench runs `fio --status-interval=5 --lat_percentiles 1 --output-format=json`
in every worker VM (FORMATS.md 2.2), so each `<vm>.json` is a concatenation
of cumulative status dumps whose last one has `eta == 0`. This module writes
exactly that shape, with chosen totals: the final dump's IOPS, bytes and
I/O-weighted mean latencies are the numbers asked for (to the precision fio
prints), and the intermediate dumps grow towards them along a seeded rate
profile (a ramp-up, then AR(1)-correlated noise; latency by Little's law), so
a reader that differences the dumps gets a realistic per-interval series for
the steady-state analysis (fct_result_steady_state).

Used by the reference-dataset generator and by the benchmarks; the keys and
their order follow fio 3.33's `stat.c` JSON writer.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass

FIO_VERSION = "fio-3.33"
ETA_RUNNING = 2147483647
PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)


@dataclass(frozen=True, slots=True)
class DirectionTarget:
    """What one direction of one job must report at the end of the run."""

    total_ios: int
    mean_latency_ns: float
    # Latency spread as a lognormal shape: sigma of log(latency). 0.35 gives
    # p95 about 1.8x the median, typical of a steady flash workload.
    sigma: float = 0.35


@dataclass(frozen=True, slots=True)
class JobSpec:
    jobname: str
    rw: str
    rwmixread: int | None
    block_size_bytes: int
    iodepth: int
    read: DirectionTarget
    write: DirectionTarget
    runtime_ms: int
    usr_cpu_pct: float = 2.0
    sys_cpu_pct: float = 6.0


def lognormal_quantiles(mean_ns: float, sigma: float) -> dict[float, int]:
    """Percentiles of a lognormal latency distribution with the given mean."""
    mu = math.log(mean_ns) - sigma**2 / 2
    nd = _std_normal_quantile
    return {p: round(math.exp(mu + sigma * nd(p / 100))) for p in PERCENTILES}


def _std_normal_quantile(q: float) -> float:
    # Acklam's rational approximation; ample precision for plausible percentiles.
    a = [
        -3.969683028665376e01,
        2.209460984245205e02,
        -2.759285104469687e02,
        1.383577518672690e02,
        -3.066479806614716e01,
        2.506628277459239e00,
    ]
    b = [
        -5.447609879822406e01,
        1.615858368580409e02,
        -1.556989798598866e02,
        6.680131188771972e01,
        -1.328068155288572e01,
    ]
    c = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e00,
        -2.549732539343734e00,
        4.374664141464968e00,
        2.938163982698783e00,
    ]
    d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00]
    if q < 0.02425:
        r = math.sqrt(-2 * math.log(q))
        return (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) / (
            (((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1
        )
    if q > 1 - 0.02425:
        return -_std_normal_quantile(1 - q)
    r = (q - 0.5) ** 2
    num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * (q - 0.5)
    return num / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


def _stat(values: tuple[float, float, float, float], n: int) -> dict:
    lo, hi, mean, sd = values
    return {"min": int(lo), "max": int(hi), "mean": round(mean, 6), "stddev": round(sd, 6), "N": n}


def _direction(
    target: DirectionTarget, progress: Progress | None, runtime_ms: int, bs: int, with_pct: bool
) -> dict:
    """One direction of one dump: the run's totals at its end (`progress` None), else the
    running totals at `progress` (its I/O share, elapsed time and cumulative mean latency)."""
    if progress is None:
        ios, elapsed, mean = target.total_ios, max(1, runtime_ms), target.mean_latency_ns
    else:
        ios = round(target.total_ios * progress.io_fraction)
        elapsed = max(1, progress.elapsed_ms)
        mean = target.mean_latency_ns * progress.latency_factor
    io_bytes = ios * bs
    if ios == 0:
        zero = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
        return {
            "io_bytes": 0,
            "io_kbytes": 0,
            "bw_bytes": 0,
            "bw": 0,
            "iops": 0.0,
            "runtime": 0,
            "total_ios": 0,
            "short_ios": 0,
            "drop_ios": 0,
            "slat_ns": dict(zero),
            "clat_ns": dict(zero),
            "lat_ns": dict(zero),
            "bw_min": 0,
            "bw_max": 0,
            "bw_agg": 0.0,
            "bw_mean": 0.0,
            "bw_dev": 0.0,
            "bw_samples": 0,
            "iops_min": 0,
            "iops_max": 0,
            "iops_mean": 0.0,
            "iops_stddev": 0.0,
            "iops_samples": 0,
        }
    sd = mean * math.sqrt(math.exp(target.sigma**2) - 1)
    quantiles = lognormal_quantiles(mean, target.sigma)
    slat = (1000.0, 20000.0, 2500.0, 900.0)
    clat_mean = mean - slat[2]
    lat = {**_stat((mean * 0.2, mean * 12, mean, sd), ios)}
    clat = {**_stat((clat_mean * 0.2, clat_mean * 12, clat_mean, sd), ios)}
    if with_pct:
        lat["percentile"] = {f"{p:f}": v for p, v in quantiles.items()}
        clat["percentile"] = {f"{p:f}": max(1, v - int(slat[2])) for p, v in quantiles.items()}
    iops = ios * 1000 / elapsed
    bw_bytes = io_bytes * 1000 // elapsed
    samples = max(1, elapsed // 500)
    return {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes // 1024,
        "iops": round(iops, 6),
        "runtime": elapsed,
        "total_ios": ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": _stat(slat, ios),
        "clat_ns": clat,
        "lat_ns": lat,
        "bw_min": int(bw_bytes / 1024 * 0.9),
        "bw_max": int(bw_bytes / 1024 * 1.1),
        "bw_agg": 100.0,
        "bw_mean": round(bw_bytes / 1024, 6),
        "bw_dev": round(bw_bytes / 1024 * 0.03, 6),
        "bw_samples": samples,
        "iops_min": int(iops * 0.9),
        "iops_max": int(iops * 1.1),
        "iops_mean": round(iops, 6),
        "iops_stddev": round(iops * 0.03, 6),
        "iops_samples": samples,
    }


def _job(spec: JobSpec, progress: Progress | None, eta: int, elapsed_s: int) -> dict:
    runtime = spec.runtime_ms if progress is None else max(1, progress.elapsed_ms)
    options = {
        "rw": spec.rw,
        "bs": f"{spec.block_size_bytes // 1024}k",
        "iodepth": str(spec.iodepth),
    }
    if spec.rwmixread is not None:
        options["rwmixread"] = str(spec.rwmixread)
    trim = _direction(DirectionTarget(0, 1.0), None, runtime, spec.block_size_bytes, False)
    return {
        "jobname": spec.jobname,
        "groupid": 0,
        "error": 0,
        "eta": eta,
        "elapsed": elapsed_s,
        "job options": options,
        "read": _direction(spec.read, progress, spec.runtime_ms, spec.block_size_bytes, True),
        "write": _direction(spec.write, progress, spec.runtime_ms, spec.block_size_bytes, True),
        "trim": trim,
        "sync": {
            "total_ios": 0,
            "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        },
        "job_runtime": runtime,
        "usr_cpu": spec.usr_cpu_pct,
        "sys_cpu": spec.sys_cpu_pct,
        "ctx": int(runtime * 10),
        "majf": 0,
        "minf": 40,
        "iodepth_level": {
            "1": 0.1,
            "2": 0.1,
            "4": 0.1,
            "8": 0.2,
            "16": 0.5,
            "32": 99.0,
            ">=64": 0.0,
        },
        "latency_depth": spec.iodepth,
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    }


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a run stands at one intermediate status dump."""

    elapsed_ms: int
    io_fraction: float  # share of the run's I/O done so far (0-1)
    latency_factor: float  # cumulative mean latency / the run's mean latency


@dataclass(frozen=True, slots=True)
class RateNoise:
    """How a run's I/O rate moves from interval to interval (relative to its mean).

    A ramp-up (caches and queues filling: the rate starts `ramp_depth` below the plateau and
    closes the gap with time constant `ramp_tau_s`) times AR(1) noise: e_i = phi e_(i-1) +
    sqrt(1 - phi^2) sigma z_i, z_i standard normal, so neighbouring intervals move together
    (what makes plain per-interval statistics overconfident) and the marginal spread is
    `sigma`. Defaults: a few percent, as a flash cluster's 5 s HCIBench intervals show."""

    ramp_depth: float = 0.25
    ramp_tau_s: float = 3.0
    phi: float = 0.6
    sigma: float = 0.02


def rate_profile(
    interval_ends_ms: list[int], rng: random.Random, noise: RateNoise = RateNoise()
) -> list[float]:
    """Relative I/O rate (> 0) of each interval ending at `interval_ends_ms` (the first starts
    at 0): the ramp-up at the interval's middle times the AR(1) noise."""
    rates, e, start = [], 0.0, 0
    innovation = math.sqrt(1 - noise.phi**2) * noise.sigma
    for index, end in enumerate(interval_ends_ms):
        z = rng.gauss(0.0, 1.0)
        e = rng.gauss(0.0, noise.sigma) if index == 0 else noise.phi * e + innovation * z
        middle_s = (start + end) / 2000
        ramp = 1 - noise.ramp_depth * math.exp(-middle_s / noise.ramp_tau_s)
        rates.append(max(0.05, ramp * (1 + e)))
        start = end
    return rates


def dump_times_ms(runtime_ms: int, interval_s: int, rng: random.Random) -> list[int]:
    """When fio writes its status dumps: every `interval_s` (a few ms late, as a real helper
    thread is), the last one at the end of the run."""
    step = interval_s * 1000
    times = [k * step + rng.randint(0, 25) for k in range(1, runtime_ms // step + 1)]
    return [t for t in times if t < runtime_ms - step // 10] + [runtime_ms]


def _progress(ends_ms: list[int], rates: list[float]) -> list[Progress]:
    """Running totals at each dump but the last. Latency follows Little's law at a fixed
    queue depth (latency = depth / rate), so the I/O-weighted mean latency of an interval is
    k / rate and the cumulative mean at t is k t / N(t); k makes the run's mean exact."""
    done, start, cumulative = 0.0, 0, []
    for end, rate in zip(ends_ms, rates, strict=True):
        done += rate * (end - start)
        cumulative.append(done)
        start = end
    total, runtime = cumulative[-1], ends_ms[-1]
    return [
        Progress(end, io / total, (end / runtime) / (io / total))
        for end, io in zip(ends_ms[:-1], cumulative[:-1], strict=True)
    ]


def status_interval_output(
    jobs: list[JobSpec],
    *,
    ended_at_epoch_s: int,
    interval_s: int = 5,
    global_options: dict[str, str] | None = None,
    seed: int = 0,
    shared_rates: list[float] | None = None,
) -> str:
    """The concatenated JSON status dumps of one fio run, final dump last.

    The final dump reports the jobs' targets exactly. The intermediate ones report the
    running totals of a seeded rate profile (`rate_profile`: ramp-up and AR(1) noise); a
    result of several VMs passes the cluster's `shared_rates` (one per dump, from
    `rate_profile` over the same `dump_times_ms`), and each VM adds 1 % of its own noise."""
    rng = random.Random(seed)
    runtime_ms = max(job.runtime_ms for job in jobs)
    ends = dump_times_ms(runtime_ms, interval_s, rng)
    if shared_rates is None:
        rates = rate_profile(ends, rng)
    else:
        if len(shared_rates) != len(ends):
            raise ValueError(f"{len(shared_rates)} shared rates for {len(ends)} dumps")
        rates = [r * (1 + rng.gauss(0.0, 0.01)) for r in shared_rates]
    steps: list[Progress | None] = [*_progress(ends, rates), None]
    documents = []
    for end_ms, progress in zip(ends, steps, strict=True):
        fraction = end_ms / runtime_ms
        document = {
            "fio version": FIO_VERSION,
            "timestamp": ended_at_epoch_s - int((1 - fraction) * runtime_ms / 1000),
            "timestamp_ms": ended_at_epoch_s * 1000 - int((1 - fraction) * runtime_ms),
            "time": time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(ended_at_epoch_s)),
            "global options": {
                "ioengine": "libaio",
                "direct": "1",
                "time_based": "1",
                "runtime": str(runtime_ms // 1000),
                "lat_percentiles": "1",
                **(global_options or {}),
            },
            "jobs": [
                _job(j, progress, ETA_RUNNING if progress else 0, round(end_ms / 1000))
                for j in jobs
            ],
        }
        documents.append(json.dumps(document, indent=2, separators=(",", " : ")))
    return "\n".join(documents) + "\n"


def documents(text: str) -> list[tuple[str, dict]]:
    """The JSON documents of a concatenation of fio status dumps, each with its own text."""
    decoder = json.JSONDecoder()
    position, found = 0, []
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return found
        document, end = decoder.raw_decode(text, position)
        found.append((text[position:end], document))
        position = end


def final_fio_dump(text: str) -> dict:
    """The last JSON document of a concatenation of fio status dumps (the result)."""
    found = documents(text)
    if not found:
        raise ValueError("no JSON document")
    return found[-1][1]
