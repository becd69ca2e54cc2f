"""`raw.vdbench_runs`: Vdbench's `avg_` totals line of each run definition.

Derived columns (QUERY):
    throughput_mismatch_pct  |iops x bytes_per_io / 2^20 - mib_per_s| as a percent of the larger
                             (Vdbench's MB/sec is MiB/s); 0 within one I/O per second or the
                             0.01 printed; NULL when a term is missing
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "vdbench_runs"
TABLE = "raw.vdbench_runs"
REQUIRES = (TABLE,)
_FINITE = (
    "iops",
    "mib_per_s",
    "read_pct",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
    "resp_max_ms",
    "read_max_ms",
    "write_max_ms",
    "queue_depth",
    "cpu_sys_user_pct",
    "cpu_sys_pct",
)
QUERY = f"""
select
    concat_ws(' ', 'file', _source_file_id, 'run', run_index, rd_name) as row_ref,
    state, iops, mib_per_s, bytes_per_io, read_pct, resp_ms, read_resp_ms, write_resp_ms,
    resp_max_ms, read_max_ms, write_max_ms, queue_depth, cpu_sys_user_pct, cpu_sys_pct,
    case
        when iops is null or bytes_per_io is null or mib_per_s is null then null
        when abs(iops * bytes_per_io / 1048576.0 - mib_per_s)
            <= greatest(0.011, bytes_per_io / 1048576.0) then 0.0
        else 100 * abs(iops * bytes_per_io / 1048576.0 - mib_per_s)
            / greatest(iops * bytes_per_io / 1048576.0, mib_per_s)
    end as throughput_mismatch_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""

_CPU_NOTE = (
    "Vdbench's cpu% columns are percent of the host's CPUs (0..100); outside means the columns "
    "were counted wrongly (50406 vs 50407 layouts)."
)


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["iops", "mib_per_s", "bytes_per_io", "queue_depth"],
            "Rates, sizes and queue depths are non-negative as printed.",
        ),
        *expect.non_negative(
            ["resp_ms", "read_resp_ms", "write_resp_ms", "resp_max_ms"],
            "Response times are durations; negative means a mis-split line.",
        ),
        expect.between("read_pct", 0, 100, "The read share of the run is a percentage."),
        *expect.percentages(["cpu_sys_user_pct", "cpu_sys_pct"], _CPU_NOTE),
        expect.ordered(
            "cpu_sys_pct",
            "cpu_sys_user_pct",
            "System CPU is part of system+user CPU; more means the two columns are swapped.",
        ),
        expect.ordered(
            "resp_ms",
            "resp_max_ms",
            "A mean response time cannot exceed the maximum one.",
        ),
        expect.ordered("read_resp_ms", "read_max_ms", "A mean cannot exceed its maximum."),
        expect.ordered("write_resp_ms", "write_max_ms", "A mean cannot exceed its maximum."),
        expect.throughput_check(
            "throughput_mismatch_pct",
            "IOPS x bytes per I/O must give MB/sec (MiB/s) within "
            f"{expect.THROUGHPUT_TOLERANCE_PCT}%; a gap means columns were shifted by the "
            "layout detection.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.finished(
            "A run definition without an avg_ line did not finish (the VM stalled or was "
            "stopped): it has no totals and its VM is missing from the case's sums.",
        ),
    ]
