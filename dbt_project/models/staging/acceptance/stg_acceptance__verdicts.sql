with

source as (

    select * from {{ source('acceptance', 'verdicts') }}

),

renamed as (

    select
        ----------  ids
        result_id,

        ----------  text
        spec,
        rule_name,
        rule_status,
        testbed,
        profile,
        result_status,
        excluded_by,
        requirement,
        check_status,
        unit,
        reason,

        ----------  numerics
        rule_line,
        measured,
        limit_value,

        ----------  timestamps
        run_at

    from source

)

select * from renamed
