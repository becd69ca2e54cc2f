with

source as (

    select * from {{ source('fio', 'fio_job_directions') }}

),

renamed as (

    select
        ----------  ids
        {{ fio_job_key_columns() }},
        direction,

        ----------  numerics
        total_ios,
        io_bytes,
        iops,
        bw_bytes_per_s,
        runtime_ms,
        {{ ns_to_ms('lat_mean_ns') }} as lat_mean_ms,
        {{ ns_to_ms('clat_mean_ns') }} as clat_mean_ms,
        {{ ns_to_ms('slat_mean_ns') }} as slat_mean_ms,
        {{ ns_to_ms('lat_max_ns') }} as lat_max_ms,
        {{ ns_to_ms('clat_max_ns') }} as clat_max_ms,
        -- fio reports lat (slat + clat) when it measured it; terse v2/normal
        -- output of old versions may only carry clat, which is then the best
        -- mean completion latency there is.
        {{ ns_to_ms('coalesce(lat_mean_ns, clat_mean_ns)') }}
            as completion_latency_mean_ms,
        {{ bytes_to_mb('bw_bytes_per_s') }} as throughput_mb_s,

        ----------  text
        -- why measures of the row are NULL (an impossible value), else NULL
        unsound_reason,

        ----------  booleans
        is_total_ios_derived

    from source

)

select * from renamed
