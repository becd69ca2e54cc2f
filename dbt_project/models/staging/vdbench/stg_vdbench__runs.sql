with

source as (

    select * from {{ source('vdbench', 'vdbench_runs') }}

),

renamed as (

    select
        ----------  ids
        {{ hashed_key(['_source_file_id', 'run_index']) }} as vdbench_run_id,
        _source_file_id as source_file_id,
        run_index,
        rd_name,

        ----------  text
        rd_text,
        state,
        avg_label,
        started_tod,
        ended_tod,

        ----------  numerics
        elapsed_s,
        warmup_s,
        iops,
        {{ mib_to_mb('mib_per_s') }} as throughput_mb_s,
        bytes_per_io,
        xfersize_bytes,
        read_pct,
        requested_read_pct,
        requested_seek_pct,
        threads,
        queue_depth,
        resp_ms as avg_latency_ms,
        read_resp_ms as read_latency_ms,
        write_resp_ms as write_latency_ms,
        cpu_sys_user_pct as client_cpu_util_pct,

        ----------  booleans
        is_format_run

    from source

)

select * from renamed
