with

source as (

    select * from {{ source('fio', 'fio_runs') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        run_index,

        ----------  text
        fio_version,
        output_format,
        terse_version,

        ----------  numerics
        status_dump_count,

        ----------  booleans
        is_client_mode,
        is_finished,

        ----------  timestamps
        ended_at

    from source

)

select * from renamed
