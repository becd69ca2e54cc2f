{#- One row per workload result x output: a per-VM file, or a client host
    of a fio client-mode file (the per-VM spread behind a result's sums).
    fio: the output's directions summed, mean latency weighted by I/O count;
    Vdbench: the file's avg_ totals of the run. Only outputs the result's
    sums are made of (finished, best Vdbench report kind); results known
    only from an HCIBench summary have none. -#}
with

{{ import_ctes([
    'fct_workload_results',
    'int_fio_directions_assigned_to_results',
    'stg_vdbench__runs',
]) }},

int_result_outputs_keyed as (

    select * from {{ ref('int_result_outputs_keyed') }}
    where source_tool = 'vdbench' and is_contributing

),

fio_outputs_aggregated as (

    select
        result_id,
        source_file_id,
        source_path,
        host_name,
        'fio' as source_tool,
        sum(iops) as iops,
        sum(iops) filter (where direction = 'read') as read_iops,
        sum(iops) filter (where direction = 'write') as write_iops,
        sum(throughput_mb_s) as throughput_mb_s,
        {{ weighted_mean(
            'avg_latency_mean_ms',
            'total_ios'
        ) }} as avg_latency_ms,
        {{ latency_kind_of_mean('avg_latency_kind') }} as avg_latency_kind

    from int_fio_directions_assigned_to_results
    group by result_id, source_file_id, source_path, host_name

),

vdbench_outputs_joined_to_runs as (

    select
        int_result_outputs_keyed.result_id,
        int_result_outputs_keyed.source_file_id,
        int_result_outputs_keyed.source_path,
        int_result_outputs_keyed.host_name,
        'vdbench' as source_tool,
        stg_vdbench__runs.iops,
        stg_vdbench__runs.iops * stg_vdbench__runs.read_pct / 100.0
            as read_iops,
        stg_vdbench__runs.iops * (100.0 - stg_vdbench__runs.read_pct) / 100.0
            as write_iops,
        stg_vdbench__runs.throughput_mb_s,
        stg_vdbench__runs.avg_latency_ms,
        -- Vdbench's response time: the whole I/O's
        case
            when stg_vdbench__runs.avg_latency_ms is not null then 'total'
        end as avg_latency_kind

    from int_result_outputs_keyed
    inner join stg_vdbench__runs
        on
            int_result_outputs_keyed.source_file_id
            = stg_vdbench__runs.source_file_id
            and int_result_outputs_keyed.run_index = stg_vdbench__runs.run_index

),

outputs_unioned as (

    select * from fio_outputs_aggregated
    union all by name
    select * from vdbench_outputs_joined_to_runs

),

outputs_compared_to_result as (

    select
        -- identifiers
        {{ hashed_key([
            'outputs_unioned.result_id',
            'outputs_unioned.source_file_id',
            "coalesce(outputs_unioned.host_name, '')",
        ]) }} as result_output_id,
        outputs_unioned.result_id,
        outputs_unioned.source_file_id,

        -- dimensions
        outputs_unioned.source_tool,
        outputs_unioned.source_path,
        outputs_unioned.host_name,
        concat_ws(
            ' @ ',
            regexp_extract(outputs_unioned.source_path, '[^/]+$'),
            outputs_unioned.host_name
        ) as output_label,

        -- facts
        outputs_unioned.iops,
        outputs_unioned.read_iops,
        outputs_unioned.write_iops,
        outputs_unioned.throughput_mb_s,
        outputs_unioned.avg_latency_ms,
        outputs_unioned.avg_latency_kind,
        100.0 * outputs_unioned.iops / nullif(fct_workload_results.iops, 0)
            as share_of_result_iops_pct,
        {{ pct_change(
            'outputs_unioned.iops',
            'avg(outputs_unioned.iops) over (partition by outputs_unioned.result_id)'
        ) }} as iops_vs_output_mean_pct

    from outputs_unioned
    inner join fct_workload_results
        on outputs_unioned.result_id = fct_workload_results.result_id

)

select * from outputs_compared_to_result
