{#- One row per workload result: its host CPU and whether the hosts were
    saturated, the one definition the history (a run-validity rule of
    change-point detection) and `ingest accept` (marts.fct_result_host_cpu,
    a run-validity rule of acceptance) share (docs/ANALYSES.md, "Host CPU
    saturated"). The host CPU is the busiest host's mean over the run window
    (the captures attached to the result): one saturated host sets the pace
    of a vSAN cluster, which the mean over hosts hides. Without captures it
    is the result's own cpu_util_pct (HCIBench's resource usage, a cluster
    mean: the only CPU figure such a run has). A result is saturated at or
    above var host_cpu_saturated_pct; NULL when its CPU is unknown. -#}
with

{{ import_ctes(['int_workload_results_completed']) }},

int_result_hosts_measured as (

    select * from {{ ref('int_result_hosts_measured') }}
    where host_origin = 'capture' and host_cpu_util_pct is not null

),

busiest_hosts as (

    select
        result_id,
        max(host_cpu_util_pct) as host_cpu_pct,
        arg_max(host_name, host_cpu_util_pct) as busiest_host

    from int_result_hosts_measured
    group by result_id

),

cpu_chosen as (

    select
        int_workload_results_completed.result_id,
        busiest_hosts.busiest_host,
        coalesce(
            busiest_hosts.host_cpu_pct,
            int_workload_results_completed.cpu_util_pct
        ) as host_cpu_pct,
        case
            when busiest_hosts.host_cpu_pct is not null then 'busiest_host'
            when
                int_workload_results_completed.cpu_util_pct is not null
                then 'result_mean'
        end as host_cpu_source

    from int_workload_results_completed
    left join busiest_hosts
        on int_workload_results_completed.result_id = busiest_hosts.result_id

),

saturation_judged as (

    select
        -- identifiers
        result_id,

        -- dimensions
        busiest_host,
        host_cpu_source,

        -- facts
        host_cpu_pct,
        cast({{ var('host_cpu_saturated_pct') }} as double)
            as host_cpu_saturated_pct,
        host_cpu_pct >= {{ var('host_cpu_saturated_pct') }}
            as is_host_cpu_saturated

    from cpu_chosen

)

select * from saturation_judged
