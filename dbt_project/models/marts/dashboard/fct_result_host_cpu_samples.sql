{#- One row per workload result x host CPU sample taken on the result's
    testbed during its run window (started_at to ended_at): the host CPU the
    run explorer draws for a result. A sample of overlapping runs belongs
    to each of them. -#}
with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where started_at is not null and ended_at is not null

),

fct_host_cpu_samples as (

    select * from {{ ref('fct_host_cpu_samples') }}

),

samples_in_run_window as (

    select
        -- identifiers
        fct_workload_results.result_id,
        fct_host_cpu_samples.host_cpu_sample_id,
        fct_host_cpu_samples.testbed_id,
        fct_host_cpu_samples.source_file_id,

        -- dimensions
        fct_host_cpu_samples.testbed,
        fct_host_cpu_samples.host_name,
        fct_host_cpu_samples.source_tool,

        -- timestamps
        fct_host_cpu_samples.sampled_at,

        -- facts
        fct_host_cpu_samples.cpu_util_pct

    from fct_workload_results
    inner join fct_host_cpu_samples
        on
            fct_workload_results.testbed_id = fct_host_cpu_samples.testbed_id
            and fct_host_cpu_samples.sampled_at
            between fct_workload_results.started_at
            and fct_workload_results.ended_at

)

select * from samples_in_run_window
