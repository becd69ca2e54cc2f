with

source as (

    select * from {{ source('esxtop', 'esxtop_sample_times') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        sample_index,

        ----------  text
        timestamp_text,

        ----------  numerics
        line_number,

        ----------  timestamps
        sampled_at

    from source

)

select * from renamed
