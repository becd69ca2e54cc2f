with

source as (

    select * from {{ source('esxtop', 'esxtop_counters') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        counter_id,

        ----------  text
        host as host_name,
        object_group,
        instance,
        counter,
        header,

        ----------  numerics
        column_index,

        ----------  booleans
        is_name_inferred

    from source

)

select * from renamed
