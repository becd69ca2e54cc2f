{#- Per-host figures of a workload result, one row per result x host x
    origin: fio client mode reports each client host's jobs (`fio_client`);
    vSAN Observer / performance service captures give each host's DOM client
    IOPS and host CPU, averaged over the samples inside the result's time
    window on the same testbed (`capture`). -#}
with

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}
    where host_name is not null

),

int_host_samples_unioned as (

    select * from {{ ref('int_host_samples_unioned') }}

),

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}
    where started_at is not null and ended_at is not null

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

fio_client_hosts as (

    select
        result_id,
        host_name,
        'fio_client' as host_origin,
        sum(iops) as host_iops,
        cast(null as double) as host_cpu_util_pct

    from int_fio_directions_assigned_to_results
    group by result_id, host_name

),

samples_joined_to_testbeds as (

    select
        int_host_samples_unioned.*,
        stg_ingest__source_files.testbed

    from int_host_samples_unioned
    inner join stg_ingest__source_files
        on
            int_host_samples_unioned.source_file_id
            = stg_ingest__source_files.source_file_id

),

captured_hosts as (

    select
        int_workload_results_labelled.result_id,
        samples_joined_to_testbeds.host_name,
        'capture' as host_origin,
        avg(samples_joined_to_testbeds.value) filter (
            where samples_joined_to_testbeds.metric = 'iops'
        ) as host_iops,
        avg(samples_joined_to_testbeds.value) filter (
            where samples_joined_to_testbeds.metric = 'cpu_util_pct'
        ) as host_cpu_util_pct

    from int_workload_results_labelled
    inner join samples_joined_to_testbeds
        on
            int_workload_results_labelled.testbed
            is not distinct from samples_joined_to_testbeds.testbed
            and samples_joined_to_testbeds.sampled_at
            between int_workload_results_labelled.started_at
            and int_workload_results_labelled.ended_at
    group by
        int_workload_results_labelled.result_id,
        samples_joined_to_testbeds.host_name

),

hosts_unioned as (

    select * from fio_client_hosts
    union all
    select * from captured_hosts

)

select * from hosts_unioned
