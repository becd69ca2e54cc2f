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
        -- the mean the results use and which span it measures
        -- (ingest.records.LatencyKind): fio's total latency (lat = slat +
        -- clat) when it is there and sound, else its completion latency
        -- (clat: old terse v2 and normal outputs carry no lat). The parser
        -- decides it; rows loaded by a parser that did not yet (its columns
        -- NULL) get the same rule here.
        {{ ns_to_ms(
            'coalesce(avg_latency_mean_ns, lat_mean_ns, clat_mean_ns)'
        ) }} as avg_latency_mean_ms,
        coalesce(
            avg_latency_kind,
            case
                -- a direction that did no I/O measured no latency
                when coalesce(total_ios, 0) = 0 then null
                when lat_mean_ns is not null then 'total'
                when clat_mean_ns is not null then 'completion'
            end
        ) as avg_latency_kind,
        {{ bytes_to_mb('bw_bytes_per_s') }} as throughput_mb_s,

        ----------  text
        -- why measures of the row are NULL (an impossible value), else NULL
        unsound_reason,

        ----------  booleans
        is_total_ios_derived

    from source

)

select * from renamed
