with

source as (

    select * from {{ source('vdbench', 'vdbench_intervals') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        run_index,
        rd_name,
        interval_index,

        ----------  text
        tod,

        ----------  numerics
        tod_ms,
        iops,
        {{ mib_to_mb('mib_per_s') }} as throughput_mb_s,
        bytes_per_io,
        read_pct,
        resp_ms as avg_latency_ms,
        read_resp_ms as read_latency_ms,
        write_resp_ms as write_latency_ms,
        queue_depth

    from source

)

select * from renamed
