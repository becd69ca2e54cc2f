with

source as (

    select * from {{ source('reviews', 'change_point_decisions') }}

),

renamed as (

    select
        ----------  ids
        series_key,
        result_id,

        ----------  text
        measure,
        review_state,
        reviewed_by,
        review_note,

        ----------  timestamps
        reviewed_at

    from source

)

select * from renamed
