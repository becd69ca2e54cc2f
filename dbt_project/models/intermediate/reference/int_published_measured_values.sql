{#- Every value the marts measured that a published figure can be compared
    with: one row per mart row x metric, with the labels the row carries
    (NULL measured values kept), `matched_key` (the row, as shown in
    published_vs_measured.matched_result_id), `compared_to` (the base of a
    delta) and `uncarried_labels` (labels the mart's grain aggregates
    over: not compared). -#}
with

int_published_measured_results as (

    select * from {{ ref('int_published_measured_results') }}

),

int_published_measured_profile_deltas as (

    select * from {{ ref('int_published_measured_profile_deltas') }}

),

int_published_measured_config_deltas as (

    select * from {{ ref('int_published_measured_config_deltas') }}

),

int_published_measured_dedupe_ratios as (

    select * from {{ ref('int_published_measured_dedupe_ratios') }}

),

int_published_measured_transport_efficiency as (

    select * from {{ ref('int_published_measured_transport_efficiency') }}

),

measured_unioned as (

    select * from int_published_measured_results
    union all by name
    select * from int_published_measured_profile_deltas
    union all by name
    select * from int_published_measured_config_deltas
    union all by name
    select * from int_published_measured_dedupe_ratios
    union all by name
    select * from int_published_measured_transport_efficiency

)

select * from measured_unioned
