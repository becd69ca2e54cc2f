{#- Per-host figures of a workload result, one row per result x host x
    origin: fio client mode reports each client host's jobs (`fio_client`);
    esxtop, vSAN Observer and performance service captures give each host's
    DOM client IOPS, host CPU and (esxtop) host CPU load average, averaged
    over the samples of the captures attached to the result inside its time
    window (`capture`; int_result_captures_matched says which attach). -#}
with

{{ import_ctes(['int_result_host_samples']) }},

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}
    where host_name is not null

),

fio_client_hosts as (

    select
        result_id,
        host_name,
        'fio_client' as host_origin,
        sum(iops) as host_iops,
        cast(null as double) as host_cpu_util_pct,
        cast(null as double) as host_cpu_load

    from int_fio_directions_assigned_to_results
    group by result_id, host_name

),

captured_hosts as (

    select
        result_id,
        host_name,
        'capture' as host_origin,
        avg(value) filter (where metric = 'iops') as host_iops,
        avg(value) filter (where metric = 'cpu_util_pct') as host_cpu_util_pct,
        avg(value) filter (where metric = 'cpu_load') as host_cpu_load

    from int_result_host_samples
    group by result_id, host_name

),

hosts_unioned as (

    select * from fio_client_hosts
    union all
    select * from captured_hosts

)

select * from hosts_unioned
