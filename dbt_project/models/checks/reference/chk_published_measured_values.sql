{#- Every value the marts measured that a published figure can be compared
    with: one row per mart row x metric, with the labels the row carries
    (NULL measured values kept), `matched_key` (the row, as shown in
    published_vs_measured.matched_result_id), `compared_to` (the base of a
    delta), `uncarried_labels` (labels the mart's grain aggregates
    over: not compared) and `is_one_of` (true when the row is one of
    several values its key holds, e.g. the block sizes near a sweep's
    best: the figure needs to hold for one of them). -#}
with

{{ import_ctes([
    'chk_published_measured_results',
    'chk_published_measured_profile_deltas',
    'chk_published_measured_config_deltas',
    'chk_published_measured_dedupe_ratios',
    'chk_published_measured_transport_efficiency',
    'chk_published_measured_node_targets',
    'chk_published_measured_storage_policies',
    'chk_published_measured_capacity',
    'chk_published_measured_sweeps',
    'chk_published_measured_sweep_points',
]) }},

measured_unioned as (

    select * from chk_published_measured_results
    union all by name
    select * from chk_published_measured_profile_deltas
    union all by name
    select * from chk_published_measured_config_deltas
    union all by name
    select * from chk_published_measured_dedupe_ratios
    union all by name
    select * from chk_published_measured_transport_efficiency
    union all by name
    select * from chk_published_measured_node_targets
    union all by name
    select * from chk_published_measured_storage_policies
    union all by name
    select * from chk_published_measured_capacity
    union all by name
    select * from chk_published_measured_sweeps
    union all by name
    select * from chk_published_measured_sweep_points

)

select * from measured_unioned
