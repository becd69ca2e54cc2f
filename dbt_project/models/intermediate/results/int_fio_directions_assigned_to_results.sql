with

{{ import_ctes(['stg_fio__job_directions', 'stg_ingest__source_files']) }},

stg_fio__jobs as (

    -- Only finished, error-free jobs are results; fio's "All clients"
    -- aggregate repeats the per-host rows and is never summed with them.
    select * from {{ ref('stg_fio__jobs') }}
    where state = 'ok' and not is_all_clients_aggregate

),

jobs_assigned_to_results as (

    select
        stg_fio__jobs.*,
        stg_ingest__source_files.source_path,
        -- one test of a file or folder: its workload_key
        {{ result_group('stg_ingest__source_files') }} as result_group,
        {{ result_key('fio', 'result_group', ['stg_fio__jobs.workload_key']) }}
            as result_key

    from stg_fio__jobs
    inner join stg_ingest__source_files
        on
            stg_fio__jobs.source_file_id
            = stg_ingest__source_files.source_file_id

),

directions_joined_to_jobs as (

    select
        -- identifiers
        {{ result_id('jobs_assigned_to_results.result_key') }} as result_id,
        jobs_assigned_to_results.result_key,
        jobs_assigned_to_results.result_group,
        jobs_assigned_to_results.fio_job_id,
        jobs_assigned_to_results.source_file_id,
        jobs_assigned_to_results.source_path,
        jobs_assigned_to_results.host_name,
        -- one output = one per-VM file, or one client host in a file
        concat_ws(
            '|',
            jobs_assigned_to_results.source_file_id,
            coalesce(jobs_assigned_to_results.host_name, '')
        ) as output_key,
        stg_fio__job_directions.direction,

        -- dimensions
        jobs_assigned_to_results.read_pct,
        jobs_assigned_to_results.random_pct,
        jobs_assigned_to_results.block_size_bytes,
        jobs_assigned_to_results.iodepth,
        -- which entry stands for how many clones (outstanding I/O)
        jobs_assigned_to_results.run_index,
        jobs_assigned_to_results.group_id,
        jobs_assigned_to_results.job_name,
        jobs_assigned_to_results.numjobs,

        -- facts
        stg_fio__job_directions.total_ios,
        stg_fio__job_directions.io_bytes,
        stg_fio__job_directions.iops,
        stg_fio__job_directions.throughput_mb_s,
        stg_fio__job_directions.completion_latency_mean_ms,
        jobs_assigned_to_results.usr_cpu_pct,
        jobs_assigned_to_results.sys_cpu_pct,

        -- timestamps
        jobs_assigned_to_results.started_at,
        jobs_assigned_to_results.ended_at

    from jobs_assigned_to_results
    inner join stg_fio__job_directions
        on
            jobs_assigned_to_results.fio_job_id
            = stg_fio__job_directions.fio_job_id

)

select * from directions_joined_to_jobs
