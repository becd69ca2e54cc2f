with

source as (

    select * from {{ source('fio', 'fio_intervals') }}

),

renamed as (

    select
        ----------  ids
        {{ fio_job_key_columns() }},
        dump_index,
        direction,

        ----------  numerics
        elapsed_end_ms,
        interval_ms,
        ios,
        io_bytes,
        iops,
        {{ bytes_to_mb('bw_bytes_per_s') }} as throughput_mb_s,
        {{ ns_to_ms('lat_mean_ns') }} as lat_mean_ms

    from source

)

select * from renamed
