{#- The values of storage_policy_costs a published figure can be compared
    with: one row per testbed x policy rule of the testbed's architecture x
    metric. A policy's cost is a property of the rule (Micron Table 7 prints
    RAID-6 next to a 4-node cluster that cannot hold it), so every rule of
    the architecture is offered; only a rule that depends on the cluster
    size (ESA RAID-5: 2+1 on 3-5 hosts, 4+1 on 6 or more) carries `nodes`,
    once per node count of the testbed's results in its band. -#}
{%- set metrics = published_metrics() -%}

with

{{ import_ctes(['storage_policy_costs', 'fct_workload_results']) }},

testbed_clusters as (

    select distinct
        testbed,
        architecture,
        nodes
    from fct_workload_results
    where testbed is not null and architecture is not null

),

policies_of_testbeds as (

    -- a rule without a band applies whatever the node count: one row per
    -- testbed, `nodes` not compared; a banded rule applies to the node
    -- counts inside its band
    select distinct
        testbed_clusters.testbed,
        storage_policy_costs.policy_rule_id,
        storage_policy_costs.ftm,
        storage_policy_costs.ftt,
        case
            when storage_policy_costs.cluster_nodes_min is not null
                then testbed_clusters.nodes
        end as nodes,
        storage_policy_costs.cluster_nodes_min is not null as is_banded,
        storage_policy_costs.capacity_multiplier,
        storage_policy_costs.capacity_overhead_pct,
        storage_policy_costs.replica_capacity_delta_pct

    from testbed_clusters
    inner join storage_policy_costs
        on
            testbed_clusters.architecture = storage_policy_costs.architecture
            and (
                storage_policy_costs.cluster_nodes_min is null
                or (
                    testbed_clusters.nodes
                    >= storage_policy_costs.cluster_nodes_min
                    and testbed_clusters.nodes
                    <= coalesce(
                        storage_policy_costs.cluster_nodes_max,
                        testbed_clusters.nodes
                    )
                )
            )

),

policies_labelled as (

    select
        'storage_policy_costs' as target_mart,
        concat_ws('|', testbed, policy_rule_id, nodes) as matched_key,
        testbed,
        ftm,
        ftt,
        nodes,
        case
            when is_banded
                then {{ labels_not_in(['ftm', 'ftt', 'nodes']) }}
            else {{ labels_not_in(['ftm', 'ftt']) }}
        end as uncarried_labels,
        capacity_multiplier,
        capacity_overhead_pct,
        replica_capacity_delta_pct

    from policies_of_testbeds

),

policies_unpivoted as (

    -- the replica (redundancy) capacity is compared with RAID-1 FTT 1's,
    -- one full copy of the data
    select
        *,
        case
            when metric = 'replica_capacity_delta_pct' then 'RAID-1'
        end as compared_to

    from (
        {{ unpivot_metrics(
            'policies_labelled', metrics['storage_policy_costs']
        ) }}
    ) as metrics_of_policies

)

select * from policies_unpivoted
