{#- One row per testbed x transport x workload (read mix, block size,
    random share, outstanding I/O, working set) of the testbeds that ran
    both TCP and RDMA: IOPS, MB/s, latency and host CPU side by side. Mean
    over the testbed's results of that workload and transport, whatever
    their profile (issue 18 will stop averaging several results). -#}
with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where transport is not null

),

testbeds_with_both as (

    select testbed from fct_workload_results
    group by testbed
    having count(distinct transport) > 1

),

workloads_averaged as (

    select
        -- dimensions
        fct_workload_results.testbed,
        fct_workload_results.transport,
        fct_workload_results.working_set,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io,

        -- facts
        avg(fct_workload_results.iops) as iops,
        avg(fct_workload_results.throughput_mb_s) as throughput_mb_s,
        avg(fct_workload_results.avg_latency_ms) as avg_latency_ms,
        avg(fct_workload_results.cpu_util_pct) as cpu_util_pct,
        count(*) as result_count

    from fct_workload_results
    inner join testbeds_with_both
        on fct_workload_results.testbed = testbeds_with_both.testbed
    group by all

)

select * from workloads_averaged
