with

source as (

    select * from {{ source('fio', 'fio_jobs') }}

),

renamed as (

    select
        ----------  ids
        {{ fio_job_key_columns() }},
        workload_key,

        ----------  text
        jobname as job_name,
        hostname as host_name,
        state,
        state_reason,
        rw,
        ioengine,
        percentile_kind,

        ----------  numerics
        groupid as group_id,
        error_code,
        elapsed_s,
        job_runtime_ms,
        usr_cpu_pct,
        sys_cpu_pct,
        read_pct,
        random_pct,
        block_size_bytes,
        iodepth,
        numjobs,

        ----------  booleans
        is_all_clients_aggregate,
        -- rows loaded before the column existed never derived a block size
        coalesce(is_block_size_derived, false) as is_block_size_derived,

        ----------  timestamps
        started_at,
        ended_at

    from source

)

select * from renamed
