with

source as (

    select * from {{ source('fio', 'fio_latency_bins') }}

),

renamed as (

    select
        ----------  ids
        {{ fio_job_key_columns() }},
        direction,
        latency_kind,

        ----------  numerics
        bin_ns,
        {{ ns_to_ms('bin_ns') }} as bin_ms,
        io_count

    from source

)

select * from renamed
