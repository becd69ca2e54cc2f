with

source as (

    select * from {{ source('fio', 'fio_disk_util') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        run_index,

        ----------  text
        hostname as host_name,
        disk_name,

        ----------  numerics
        read_ios,
        write_ios,
        read_merges,
        write_merges,
        read_ticks,
        write_ticks,
        in_queue_ticks,
        util_pct

    from source

)

select * from renamed
