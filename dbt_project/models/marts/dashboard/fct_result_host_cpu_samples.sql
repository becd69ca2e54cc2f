{#- One row per workload result x host CPU sample taken on the result's
    testbed during its run window (started_at to ended_at): the host CPU the
    run explorer draws for a result. A sample of overlapping runs belongs
    to each of them. -#}
with

int_result_host_samples as (

    select * from {{ ref('int_result_host_samples') }}
    where metric = 'cpu_util_pct'

),

samples_in_run_window as (

    select
        -- identifiers
        result_id,
        host_sample_id as host_cpu_sample_id,
        testbed_id,
        source_file_id,

        -- dimensions
        testbed,
        host_name,
        source_tool,

        -- timestamps
        sampled_at,

        -- facts
        value as cpu_util_pct

    from int_result_host_samples

)

select * from samples_in_run_window
