with

source as (

    select * from {{ source('esxtop', 'esxtop_samples') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        sample_index,
        counter_id,

        ----------  numerics
        value

    from source

)

select * from renamed
