with

source as (

    select * from {{ source('fio', 'fio_latency_percentiles') }}

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
        percentile,
        {{ ns_to_ms('latency_ns') }} as latency_ms

    from source

)

select * from renamed
