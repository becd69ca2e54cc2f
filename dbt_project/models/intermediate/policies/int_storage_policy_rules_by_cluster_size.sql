{#- The storage-policy rule that applies on each cluster size: one row per
    rule x cluster size (1 host to the `nodes` label's maximum, 64), plus
    one row with cluster_nodes NULL for each rule that does not depend on
    the cluster size (an unknown cluster still has RAID-1 FTT=1 = 2x; it
    has no ESA RAID-5 layout). Joining on architecture, ftm, ftt and
    cluster_nodes (IS NOT DISTINCT FROM) finds at most one rule, so the
    cluster-size bands are read in this one place. -#}
with

{{ import_ctes(['int_storage_policy_rules_costed']) }},

label_definitions as (

    select * from {{ ref('label_definitions') }}
    where key = 'nodes'

),

cluster_sizes as (

    select cast(series.cluster_nodes as integer) as cluster_nodes
    from label_definitions
    cross join
        generate_series(
            label_definitions.min_value, label_definitions.max_value
        ) as series (cluster_nodes)

    union all

    select cast(null as integer) as cluster_nodes

),

rules_by_cluster_size as (

    select
        int_storage_policy_rules_costed.*,
        cluster_sizes.cluster_nodes,
        concat_ws(
            '|',
            int_storage_policy_rules_costed.architecture,
            int_storage_policy_rules_costed.ftm,
            int_storage_policy_rules_costed.ftt,
            coalesce(cast(cluster_sizes.cluster_nodes as varchar), 'any')
        ) as cluster_policy_key,
        cluster_sizes.cluster_nodes
        >= int_storage_policy_rules_costed.min_hosts as is_valid_on_cluster

    from int_storage_policy_rules_costed
    inner join cluster_sizes
        on
            (
                cluster_sizes.cluster_nodes is null
                and int_storage_policy_rules_costed.cluster_nodes_min is null
                and int_storage_policy_rules_costed.cluster_nodes_max is null
            )
            or (
                cluster_sizes.cluster_nodes
                >= coalesce(
                    int_storage_policy_rules_costed.cluster_nodes_min, 1
                )
                and cluster_sizes.cluster_nodes <= coalesce(
                    int_storage_policy_rules_costed.cluster_nodes_max,
                    cluster_sizes.cluster_nodes
                )
            )

)

select * from rules_by_cluster_size
