with

{{ import_ctes(['stg_fio__job_directions']) }},

stg_fio__jobs as (

    -- Only finished, error-free jobs are results; fio's "All clients"
    -- aggregate repeats the per-host rows and is never summed with them.
    select * from {{ ref('stg_fio__jobs') }}
    where state = 'ok' and not is_all_clients_aggregate

),

int_result_outputs_keyed as (

    -- the result each job counts towards: its key is built there, once,
    -- for finished and unfinished jobs alike
    select * from {{ ref('int_result_outputs_keyed') }}
    where source_tool = 'fio'

),

jobs_assigned_to_results as (

    select
        stg_fio__jobs.*,
        int_result_outputs_keyed.result_id,
        int_result_outputs_keyed.result_key,
        int_result_outputs_keyed.result_group,
        int_result_outputs_keyed.source_path,
        int_result_outputs_keyed.loaded_at

    from stg_fio__jobs
    inner join int_result_outputs_keyed
        on stg_fio__jobs.fio_job_id = int_result_outputs_keyed.fio_job_id

),

directions_joined_to_jobs as (

    select
        -- identifiers
        jobs_assigned_to_results.result_id,
        jobs_assigned_to_results.result_key,
        jobs_assigned_to_results.result_group,
        jobs_assigned_to_results.fio_job_id,
        jobs_assigned_to_results.source_file_id,
        jobs_assigned_to_results.source_path,
        jobs_assigned_to_results.loaded_at,
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
        stg_fio__job_directions.avg_latency_mean_ms,
        stg_fio__job_directions.avg_latency_kind,
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
