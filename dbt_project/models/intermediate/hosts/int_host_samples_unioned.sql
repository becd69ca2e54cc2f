{#- Host-level time series from the capture tools, in marts units: host CPU
    (percent of the host's capacity), host CPU load average (esxtop's 1-minute
    load, a fraction of the host's CPUs: 1.0 = every CPU busy or queued) and
    vSAN DOM client IOPS per host. One row per source file x host x metric x
    sample time. -#}
with

{{ import_ctes(['stg_esxtop__samples', 'stg_esxtop__sample_times']) }},

stg_esxtop__counters as (

    -- esxtop's whole-host CPU, `Physical Cpu(_Total)\% Util Time`, and its
    -- load average, `Physical Cpu Load\Cpu Load (1 Minute Avg)` (the column
    -- RA tables print as "CPU load avg")
    select
        *,
        case
            when object_group = 'Physical Cpu' then 'cpu_util_pct'
            else 'cpu_load'
        end as metric

    from {{ ref('stg_esxtop__counters') }}
    where
        (
            object_group = 'Physical Cpu'
            and instance = '_Total'
            and counter = '% Util Time'
        )
        or (
            object_group = 'Physical Cpu Load'
            and counter = 'Cpu Load (1 Minute Avg)'
        )

),

stg_vsan_observer__samples as (

    select * from {{ ref('stg_vsan_observer__samples') }}
    where host_name is not null

),

stg_vsan_perfsvc__samples as (

    select * from {{ ref('stg_vsan_perfsvc__samples') }}
    where entity_type = 'host-domclient'

),

observer_pcpu_averaged as (

    -- Observer keeps one series per physical CPU: the host's utilisation
    -- is their mean
    select
        source_file_id,
        host_name,
        'cpu_util_pct' as metric,
        sampled_at,
        avg(value) as value,
        'vsan_observer' as source_tool

    from stg_vsan_observer__samples
    where stats_group = 'pcpu' and metric = 'used_pct'
    group by source_file_id, host_name, sampled_at

),

observer_dom_client_iops as (

    select
        source_file_id,
        host_name,
        'iops' as metric,
        sampled_at,
        sum(value) as value,
        'vsan_observer' as source_tool

    from stg_vsan_observer__samples
    where
        entity_type = 'dom_client'
        and metric in ('read_iops', 'write_iops')
        and entity is null
    group by source_file_id, host_name, sampled_at

),

perfsvc_dom_client_iops as (

    select
        source_file_id,
        entity_id as host_name,
        'iops' as metric,
        sampled_at,
        sum(value) as value,
        'vsan_perfsvc' as source_tool

    from stg_vsan_perfsvc__samples
    where metric in ('iopsRead', 'iopsWrite')
    group by source_file_id, entity_id, sampled_at

),

esxtop_host_cpu_and_load as (

    -- one row per sample time: an Excel re-save keeps only the minute, so
    -- several samples share a time and their mean is the host's CPU in it
    select
        stg_esxtop__counters.source_file_id,
        stg_esxtop__counters.host_name,
        stg_esxtop__counters.metric,
        stg_esxtop__sample_times.sampled_at,
        avg(stg_esxtop__samples.value) as value,
        'esxtop' as source_tool

    from stg_esxtop__counters
    inner join stg_esxtop__samples
        on
            stg_esxtop__counters.source_file_id
            = stg_esxtop__samples.source_file_id
            and stg_esxtop__counters.counter_id = stg_esxtop__samples.counter_id
    inner join stg_esxtop__sample_times
        on
            stg_esxtop__samples.source_file_id
            = stg_esxtop__sample_times.source_file_id
            and stg_esxtop__samples.sample_index
            = stg_esxtop__sample_times.sample_index
    where stg_esxtop__samples.value is not null
    group by
        stg_esxtop__counters.source_file_id,
        stg_esxtop__counters.host_name,
        stg_esxtop__counters.metric,
        stg_esxtop__sample_times.sampled_at

),

samples_unioned as (

    select * from esxtop_host_cpu_and_load
    union all
    select * from observer_pcpu_averaged
    union all
    select * from observer_dom_client_iops
    union all
    select * from perfsvc_dom_client_iops

)

select * from samples_unioned
