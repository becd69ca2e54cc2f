-- Each reviewed change's latest decision: its review state (a later decision
-- replaces an earlier one; the decisions themselves stay in the source).
with

decisions as (

    select * from {{ ref('stg_reviews__change_point_decisions') }}

)

select
    series_key,
    measure,
    result_id,
    review_state,
    reviewed_by,
    reviewed_at,
    review_note
from decisions
qualify row_number() over (
    partition by series_key, measure, result_id
    order by reviewed_at desc
) = 1
