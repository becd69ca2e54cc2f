{#- One row per testbed: its latest capacity observation of dedupe_ratios,
    the one the capacity page's headline figures show. An observation
    without a capture time sorts after every dated one, as it always did on
    the page. -#}
with

dedupe_ratios as (

    select * from {{ ref('dedupe_ratios') }}

),

latest_per_testbed as (

    select * from dedupe_ratios
    qualify
        row_number() over (
            partition by testbed
            order by captured_at desc nulls first, capacity_observation_id desc
        ) = 1

)

select * from latest_per_testbed
