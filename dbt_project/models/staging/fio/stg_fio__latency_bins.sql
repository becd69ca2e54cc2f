with

source as (

    select * from {{ source('fio', 'fio_latency_bins') }}

),

renamed as (

    select
        ----------  ids
        md5(
            concat_ws('|', _source_file_id, run_index, job_index)
        ) as fio_job_id,
        _source_file_id as source_file_id,
        run_index,
        job_index,
        direction,
        latency_kind,

        ----------  numerics
        bin_ns,
        {{ ns_to_ms('bin_ns') }} as bin_ms,
        io_count

    from source

)

select * from renamed
