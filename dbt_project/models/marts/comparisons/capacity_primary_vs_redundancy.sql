{#- One row per capacity observation with an object-type breakdown: the
    primary data, the redundancy the policy adds to it (replicas or
    parity: the overhead of object types that hold primary data) and the
    system overhead (object types without primary data), in bytes, with
    the redundancy the labelled policy predicts beside the measured one. -#}
with

{{ import_ctes([
    'fct_capacity_by_object_type',
    'int_storage_policy_rules_by_cluster_size',
]) }},

observations_summed as (

    select
        capacity_observation_id,
        any_value(testbed_id) as testbed_id,
        any_value(testbed) as testbed,
        any_value(architecture) as architecture,
        any_value(nodes) as nodes,
        any_value(ftm) as ftm,
        any_value(ftt) as ftt,
        any_value(profile) as profile,
        any_value(working_set) as working_set,
        any_value(captured_at) as captured_at,
        sum(primary_capacity_bytes) as primary_bytes,
        sum(overhead_bytes) filter (
            where not is_system_overhead
        ) as redundancy_bytes,
        sum(used_bytes) filter (where is_system_overhead)
            as system_overhead_bytes,
        sum(used_bytes) as breakdown_used_bytes,
        sum(used_bytes) filter (where object_type = 'vdisk')
            as vdisk_used_bytes

    from fct_capacity_by_object_type
    group by capacity_observation_id

),

observations_compared as (

    select
        -- identifiers
        observations_summed.capacity_observation_id,
        observations_summed.testbed_id,

        -- dimensions
        observations_summed.testbed,
        observations_summed.architecture,
        observations_summed.nodes,
        observations_summed.ftm,
        observations_summed.ftt,
        observations_summed.profile,
        observations_summed.working_set,

        -- timestamps
        observations_summed.captured_at,

        -- facts
        observations_summed.primary_bytes,
        observations_summed.redundancy_bytes,
        observations_summed.system_overhead_bytes,
        observations_summed.breakdown_used_bytes,
        observations_summed.vdisk_used_bytes,
        100.0 * observations_summed.redundancy_bytes
        / nullif(observations_summed.primary_bytes, 0)
            as redundancy_pct_of_primary,
        rules.capacity_overhead_pct as policy_redundancy_pct_of_primary,
        100.0 * observations_summed.vdisk_used_bytes
        / nullif(observations_summed.breakdown_used_bytes, 0)
            as vdisk_share_of_used_pct

    from observations_summed
    left join int_storage_policy_rules_by_cluster_size as rules
        on {{ storage_policy_rule_of('observations_summed') }}

)

select * from observations_compared
