{#- One row per testbed x host x capture sample: host CPU utilisation in
    percent of the host's capacity, from esxtop (`Physical Cpu(_Total)`) or
    vSAN Observer (mean of the physical CPUs). Only this one series per host
    is kept, not esxtop's thousands of counters: the wide capture is reduced
    in int_host_samples_unioned by filtering the counter catalogue first
    and then hash-joining samples on (file, counter) and (file, sample) -
    no cross join, linear in the samples. -#}
with

int_host_samples_labelled as (

    select * from {{ ref('int_host_samples_labelled') }}
    where metric = 'cpu_util_pct'

),

cpu_samples as (

    select
        -- identifiers
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

    from int_host_samples_labelled

)

select * from cpu_samples
