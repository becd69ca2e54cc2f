{#- One row per workload result x output unit: a fio job (entry of a file,
    or a client host in client mode) or a Vdbench run of a file, finished or
    not. The one place fio and Vdbench result keys are built:
    int_fio_directions_assigned_to_results and
    int_vdbench_results_aggregated take theirs from here, so the outputs
    left out and the results summed can never disagree on a key.
    `is_contributing` marks the outputs the result's sums are made of:
    finished, and for Vdbench of the best report kind in the result (a
    folder's summary.html repeats its per-VM stdout totals). -#}
with

{{ import_ctes(['stg_vdbench__outputs', 'stg_ingest__source_files']) }},

stg_fio__jobs as (

    select * from {{ ref('stg_fio__jobs') }}
    where not is_all_clients_aggregate

),

stg_vdbench__runs as (

    select * from {{ ref('stg_vdbench__runs') }}
    where not is_format_run

),

source_files_grouped as (

    select
        stg_ingest__source_files.source_file_id,
        stg_ingest__source_files.source_path,
        stg_ingest__source_files.loaded_at,
        {{ result_group('stg_ingest__source_files') }} as result_group

    from stg_ingest__source_files

),

fio_outputs_keyed as (

    select
        stg_fio__jobs.source_file_id,
        source_files_grouped.source_path,
        source_files_grouped.loaded_at,
        source_files_grouped.result_group,
        'fio' as source_tool,
        stg_fio__jobs.fio_job_id,
        stg_fio__jobs.run_index,
        cast(null as varchar) as rd_name,
        stg_fio__jobs.host_name,
        cast(null as integer) as output_kind_rank,
        stg_fio__jobs.state = 'ok' as is_finished,
        {{ result_key(
            'fio',
            'source_files_grouped.result_group',
            ['stg_fio__jobs.workload_key']
        ) }} as result_key

    from stg_fio__jobs
    inner join source_files_grouped
        on stg_fio__jobs.source_file_id = source_files_grouped.source_file_id

),

vdbench_outputs_keyed as (

    select
        stg_vdbench__runs.source_file_id,
        source_files_grouped.source_path,
        source_files_grouped.loaded_at,
        source_files_grouped.result_group,
        'vdbench' as source_tool,
        cast(null as varchar) as fio_job_id,
        stg_vdbench__runs.run_index,
        stg_vdbench__runs.rd_name,
        cast(null as varchar) as host_name,
        stg_vdbench__outputs.output_kind_rank,
        stg_vdbench__runs.state = 'ok' as is_finished,
        {{ result_key(
            'vdbench',
            'source_files_grouped.result_group',
            ['stg_vdbench__runs.run_index', 'stg_vdbench__runs.rd_name']
        ) }} as result_key

    from stg_vdbench__runs
    inner join source_files_grouped
        on
            stg_vdbench__runs.source_file_id
            = source_files_grouped.source_file_id
    inner join stg_vdbench__outputs
        on
            stg_vdbench__runs.source_file_id
            = stg_vdbench__outputs.source_file_id

),

outputs_unioned as (

    select * from fio_outputs_keyed
    union all
    select * from vdbench_outputs_keyed

),

outputs_marked_contributing as (

    select
        {{ result_id('result_key') }} as result_id,
        *,
        is_finished
        and coalesce(output_kind_rank, 0)
        = coalesce(
            min(output_kind_rank) filter (where is_finished) over (
                partition by result_key
            ),
            0
        ) as is_contributing

    from outputs_unioned

)

select * from outputs_marked_contributing
