{#- One row per testbed x host x capture sample: host CPU utilisation in
    percent of the host's capacity, from esxtop (`Physical Cpu(_Total)`) or
    vSAN Observer (mean of the physical CPUs). Only this one series per host
    is kept, not esxtop's thousands of counters: the wide capture is reduced
    in int_host_samples_unioned by filtering the counter catalogue first
    and then hash-joining samples on (file, counter) and (file, sample) -
    no cross join, linear in the samples. -#}
with

int_host_samples_unioned as (

    select * from {{ ref('int_host_samples_unioned') }}
    where metric = 'cpu_util_pct'

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

samples_labelled as (

    select
        -- identifiers
        {{ hashed_key([
            'int_host_samples_unioned.source_file_id',
            'int_host_samples_unioned.host_name',
            'int_host_samples_unioned.sampled_at',
        ]) }} as host_cpu_sample_id,
        {{ testbed_id('stg_ingest__source_files.testbed') }} as testbed_id,
        int_host_samples_unioned.source_file_id,

        -- dimensions
        stg_ingest__source_files.testbed,
        int_host_samples_unioned.host_name,
        int_host_samples_unioned.source_tool,

        -- timestamps
        int_host_samples_unioned.sampled_at,

        -- facts
        int_host_samples_unioned.value as cpu_util_pct

    from int_host_samples_unioned
    inner join stg_ingest__source_files
        on
            int_host_samples_unioned.source_file_id
            = stg_ingest__source_files.source_file_id

)

select * from samples_labelled
