{#- One row per workload result x vSAN ReadyNode profile: the result's IOPS
    per node against the profile's target (seeds/readynode_profile_
    targets.csv), so "143 % more than an AF-6 node should serve" is a
    column. Every profile is listed: which one a testbed was built to is a
    published claim, not something the results can tell. -#}
with

{{ import_ctes(['readynode_profile_targets']) }},

per_node_iops as (

    select * from {{ ref('per_node_iops') }}
    where iops_per_node is not null

),

results_against_targets as (

    select
        -- identifiers
        per_node_iops.result_id,
        per_node_iops.testbed_id,

        -- dimensions
        per_node_iops.testbed,
        per_node_iops.nodes,
        per_node_iops.profile,
        per_node_iops.working_set,
        per_node_iops.read_pct,
        per_node_iops.random_pct,
        per_node_iops.block_size_bytes,
        per_node_iops.outstanding_io,
        per_node_iops.source_tool,
        readynode_profile_targets.readynode_profile,
        readynode_profile_targets.storage_type,

        -- facts
        per_node_iops.iops,
        per_node_iops.iops_per_node,
        readynode_profile_targets.target_iops_per_node,
        {{ pct_change(
            'per_node_iops.iops_per_node',
            'readynode_profile_targets.target_iops_per_node'
        ) }} as iops_per_node_vs_target_pct

    from per_node_iops
    cross join readynode_profile_targets

)

select * from results_against_targets
