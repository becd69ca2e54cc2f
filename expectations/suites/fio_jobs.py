"""`raw.fio_jobs`: one row per fio job entry (or client), with its workload and CPU.

Derived columns (QUERY):
    group_threads             threads fio summed job_runtime over: at least numjobs, and the
                              whole number of windows the summed runtime covers (5 % slack).
                              group_reporting sums every job section of the group and "All
                              clients" every client, and fio's JSON records neither
                              group_reporting nor a command-line numjobs, so numjobs alone
                              undercounts (HCIBench: 4 vmdk sections x 1 thread, numjobs 1)
    runtime_outside_window_s  job_runtime_ms / group_threads / 1000 - (ended_at - started_at)
                              in seconds: the per-thread runtime must fit inside the job's
                              time window; a runtime that is not a whole number of windows
                              (90 s in a 60 s window) still fails
    cpu_pct_per_thread        (usr_cpu_pct + sys_cpu_pct) / numjobs: fio reports percent of one
                              CPU per job thread
    files_with_same_job       how many source files hold a job with the same host, name, start,
                              end and runtime (NULL without a start time): more than one is the
                              same run loaded twice (numjobs clones inside one file are fine)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "fio_jobs"
TABLE = "raw.fio_jobs"
REQUIRES = (TABLE,)
_FINITE = ("usr_cpu_pct", "sys_cpu_pct")
QUERY = f"""
with same_job as (
    select
        coalesce(hostname, '') as host_key, jobname, started_at, ended_at, job_runtime_ms,
        count(distinct _source_file_id) as files_with_same_job
    from {TABLE}
    where started_at is not null
    group by all
)
select
    concat_ws(' ', 'file', j._source_file_id, 'run', j.run_index, 'job', j.job_index, j.jobname)
        as row_ref,
    j.state, j.started_at, j.ended_at, j.job_runtime_ms, j.elapsed_s, j.usr_cpu_pct,
    j.sys_cpu_pct, j.read_pct, j.random_pct, j.block_size_bytes,
    greatest(
        coalesce(j.numjobs, 1),
        floor(
            j.job_runtime_ms / 1000.0 / nullif(epoch(j.ended_at) - epoch(j.started_at), 0)
            + 0.05
        ),
        1
    ) as group_threads,
    j.job_runtime_ms / group_threads / 1000.0 - (epoch(j.ended_at) - epoch(j.started_at))
        as runtime_outside_window_s,
    (j.usr_cpu_pct + j.sys_cpu_pct) / greatest(coalesce(j.numjobs, 1), 1) as cpu_pct_per_thread,
    s.files_with_same_job,
    {expect.finite_flags(_FINITE, "j")}
from {TABLE} as j
left join same_job as s
    on coalesce(j.hostname, '') = s.host_key and j.jobname = s.jobname
    and j.started_at = s.started_at and j.ended_at = s.ended_at
    and j.job_runtime_ms = s.job_runtime_ms
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["usr_cpu_pct", "sys_cpu_pct"],
            "CPU time shares cannot be negative.",
        ),
        *expect.non_negative(
            ["job_runtime_ms", "elapsed_s"],
            "Runtimes are durations; negative means a parse error.",
        ),
        *expect.percentages(
            ["read_pct", "random_pct"],
            "Read and random shares are percentages of the I/O mix (0..100).",
        ),
        expect.between(
            "block_size_bytes",
            1,
            None,
            "Every I/O moves at least one byte; a zero block size breaks throughput maths.",
        ),
        expect.ordered(
            "started_at",
            "ended_at",
            "A job cannot end before it starts (job_start vs the run's timestamp).",
        ),
        expect.between(
            "runtime_outside_window_s",
            None,
            1,
            "The job's measured runtime must fit between its start and the run's end "
            "(1 s slack for fio's rounding); otherwise the timestamps belong to another run.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.finished(
            "A job that errored or never printed its final status (a VM that stalled, a "
            "killed run) finished early: its numbers cover only part of the run.",
        ),
        expect.between(
            "cpu_pct_per_thread",
            0,
            100,
            "fio reports CPU as percent of one CPU per job thread; more than 100 suggests "
            "group_reporting summed threads.",
        ),
        expect.between(
            "files_with_same_job",
            1,
            1,
            "The same job loaded from two files (JSON and normal text of one run) will be "
            "counted twice unless dbt drops one; check the duplicate is deliberate.",
        ),
    ]
