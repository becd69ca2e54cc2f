{#- One row per workload result with a transport label, on the testbeds
    that ran more than one transport: the TCP vs RDMA page's bars, each
    bar ONE result (issue 18: no mean over results of one workload).
    What else varies on the testbed, besides the transport (colour) and
    the workload (x: read mix, block size, random share, outstanding
    I/O), is `run_configuration` (result_varying_labels), the page's selector;
    repeated runs are numbered, not merged. IOPS per host-CPU percent is
    the result's own ratio. -#}
with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where transport is not null

),

result_varying_labels as (

    select * from {{ ref('result_varying_labels') }}
    where
        label_key not in (
            'transport', 'read_pct', 'block_size', 'random_pct',
            'outstanding_io'
        )

),

testbeds_with_both as (

    select testbed_id from fct_workload_results
    group by testbed_id
    having count(distinct transport) > 1

),

configurations as (

    {{ run_configurations('result_varying_labels') }}

),

results_side_by_side as (

    select
        -- identifiers
        fct_workload_results.result_id,
        fct_workload_results.testbed_id,

        -- dimensions
        fct_workload_results.testbed,
        fct_workload_results.transport,
        coalesce(configurations.run_configuration, '') as run_configuration,
        fct_workload_results.profile,
        fct_workload_results.storage,
        fct_workload_results.working_set,
        fct_workload_results.vm_count,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,

        -- facts
        fct_workload_results.iops,
        fct_workload_results.throughput_mb_s,
        fct_workload_results.avg_latency_ms,
        fct_workload_results.p95_latency_ms,
        fct_workload_results.cpu_util_pct,
        fct_workload_results.cpu_load_avg,
        fct_workload_results.iops
        / nullif(fct_workload_results.cpu_util_pct, 0) as iops_per_cpu_pct,
        row_number() over (
            partition by
                fct_workload_results.testbed_id,
                fct_workload_results.transport,
                configurations.run_configuration,
                fct_workload_results.read_pct,
                fct_workload_results.block_size_bytes,
                fct_workload_results.random_pct,
                fct_workload_results.outstanding_io
            order by
                fct_workload_results.started_at,
                fct_workload_results.result_id
        ) as run_ordinal

    from fct_workload_results
    inner join testbeds_with_both
        on fct_workload_results.testbed_id = testbeds_with_both.testbed_id
    left join configurations
        on fct_workload_results.result_id = configurations.result_id

)

select * from results_side_by_side
