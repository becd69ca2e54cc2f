{#- One row per testbed x profile x working set with a dated capacity
    observation: its latest observation of dedupe_ratios, the one the
    capacity page's headline figures show (the Micron RA's capacity test,
    8.21x, and its cache test, 2.56x, are two headlines, not one hiding
    the other). An observation without a capture time is never the
    latest: nothing says when it was taken (it stays in dedupe_ratios and
    the page lists it as undated). -#}
with

dedupe_ratios as (

    select * from {{ ref('dedupe_ratios') }}
    where captured_at is not null

),

latest_per_testbed as (

    select * from dedupe_ratios
    qualify
        row_number() over (
            partition by testbed, profile, working_set
            order by captured_at desc, capacity_observation_id desc
        ) = 1

)

select * from latest_per_testbed
