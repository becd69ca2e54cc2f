with

source as (

    select * from {{ source('fio', 'fio_latency_percentiles') }}

),

renamed as (

    select
        ----------  ids
        {{ fio_job_key_columns() }},
        direction,
        latency_kind,

        ----------  numerics
        percentile,
        {{ ns_to_ms('latency_ns') }} as latency_ms

    from source

)

select * from renamed
