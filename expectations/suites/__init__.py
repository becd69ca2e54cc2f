"""Code-defined great-expectations suites, one module per validated model.

Every module here validates one DataFrame read from the warehouse and exposes:

    MODEL        the model name; its suites are `<MODEL>.constraints` and `<MODEL>.alerts`
    TABLE        the warehouse table reported (`marts.fct_workload_results`, `raw.fio_jobs`)
    REQUIRES     every table QUERY reads (TABLE first); when one is missing the suites are
                 reported as "skipped: table missing", not failed
    QUERY        the DuckDB SQL whose result is validated; derived columns the expectations need
                 (cross-row gaps, recomputed throughput, pivoted percentiles) are computed here,
                 each documented where it is defined. `row_ref` names the row in the report.
    constraints() -> list[Expectation]   failures fail the run
    alerts()      -> list[Expectation]   failures are reported only

A module only declares its checks (built with `_common`, imported as `expect`; every check
carries a note saying why); `suites_of` names them and sets their severity, in one place.
The functions build fresh objects on every call: GX binds an expectation to the one suite it
is added to.

Division of labour: dbt owns keys, relationships and accepted values (constraints on tables,
data tests on views and seeds); these suites own plausibility (ranges, orderings, unit
consistency, time windows, gaps, spreads).
"""

from __future__ import annotations

from types import ModuleType

import great_expectations as gx

from expectations.suites import (
    _common,
    config_deltas,
    dedupe_ratios,
    esxtop_captures,
    esxtop_cpu,
    esxtop_sample_times,
    fct_workload_results,
    fio_intervals,
    fio_job_directions,
    fio_jobs,
    fio_latency_percentiles,
    fio_vm_spread,
    hcibench_resource_usage,
    hcibench_summary_blocks,
    hcibench_unfinished_vms,
    per_node_iops,
    profile_latency_deltas,
    transport_cpu_efficiency,
    vdbench_intervals,
    vdbench_runs,
    vsan_capacity_snapshots,
    vsan_observer_samples,
    vsan_perfsvc_samples,
)

# Marts first: they are what charts show.
SUITE_MODULES: tuple[ModuleType, ...] = (
    fct_workload_results,
    per_node_iops,
    profile_latency_deltas,
    config_deltas,
    dedupe_ratios,
    transport_cpu_efficiency,
    fio_jobs,
    fio_job_directions,
    fio_latency_percentiles,
    fio_intervals,
    fio_vm_spread,
    esxtop_captures,
    esxtop_sample_times,
    esxtop_cpu,
    hcibench_summary_blocks,
    hcibench_unfinished_vms,
    hcibench_resource_usage,
    vdbench_runs,
    vdbench_intervals,
    vsan_capacity_snapshots,
    vsan_observer_samples,
    vsan_perfsvc_samples,
)


def suites_of(module: ModuleType) -> tuple[gx.ExpectationSuite, gx.ExpectationSuite]:
    """The module's `<MODEL>.constraints` and `<MODEL>.alerts` suites, freshly built."""
    return (
        _common.constraint_suite(module.MODEL, module.constraints()),
        _common.alert_suite(module.MODEL, module.alerts()),
    )
