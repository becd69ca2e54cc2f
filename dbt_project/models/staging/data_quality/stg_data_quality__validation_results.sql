with

source as (

    select * from {{ source('data_quality', 'validation_results') }}

),

renamed as (

    select
        ----------  text
        suite,
        table_name,
        expectation,
        severity,
        observed,
        notes,

        ----------  numerics
        unexpected_count,

        ----------  booleans
        success,

        ----------  timestamps
        run_at

    from source

)

select * from renamed
