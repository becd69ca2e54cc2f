{#- One row per testbed x cluster size x storage policy: every policy that
    is valid on that cluster (enough hosts, a vSAN version that has it)
    with what it costs there - an RA's "what each option costs here" table
    - plus every policy the testbed's results are labelled with, valid or
    not (`is_used_by_results`). A testbed of unknown cluster size lists
    only the policies its results use. -#}
with

{{ import_ctes(['int_storage_policy_rules_by_cluster_size']) }},

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where testbed is not null

),

clusters as (

    -- an unlabelled architecture is OSA, as in the capacity_multiplier
    -- macro; a testbed's latest labelled vSAN version decides
    select
        testbed,
        nodes,
        coalesce(architecture, 'OSA') as architecture,
        max(vsan_version) as vsan_version,
        try_cast(
            regexp_extract(max(vsan_version), '^[0-9]+\.[0-9]+') as double
        ) as vsan_version_number
    from fct_workload_results
    group by testbed, nodes, coalesce(architecture, 'OSA')

),

used_policies as (

    select
        testbed,
        nodes,
        coalesce(architecture, 'OSA') as architecture,
        ftm,
        ftt,
        count(*) as result_count
    from fct_workload_results
    where ftm is not null and ftt is not null
    group by testbed, nodes, coalesce(architecture, 'OSA'), ftm, ftt

),

valid_policies as (

    select
        clusters.testbed,
        clusters.nodes,
        clusters.architecture,
        rules.ftm,
        rules.ftt
    from clusters
    inner join int_storage_policy_rules_by_cluster_size as rules
        on
            clusters.architecture = rules.architecture
            and clusters.nodes = rules.cluster_nodes
    where
        rules.is_valid_on_cluster
        and (
            clusters.vsan_version_number is null
            or clusters.vsan_version_number >= rules.min_vsan_version_number
        )

),

policies_listed as (

    -- used_policies' columns but its count, in valid_policies' order
    select * from valid_policies
    union
    select * exclude (result_count) from used_policies

),

policies_costed as (

    select
        -- identifiers
        {{ hashed_key([
            'policies_listed.testbed', 'policies_listed.nodes',
            'policies_listed.architecture', 'policies_listed.ftm',
            'policies_listed.ftt',
        ]) }} as storage_policy_id,
        {{ testbed_id('policies_listed.testbed') }} as testbed_id,
        rules.policy_rule_id,

        -- dimensions
        policies_listed.testbed,
        policies_listed.nodes,
        policies_listed.architecture,
        clusters.vsan_version,
        policies_listed.ftm,
        policies_listed.ftt,
        rules.layout,
        rules.write_path,

        -- facts
        rules.data_fragments,
        rules.redundancy_fragments,
        rules.copies,
        rules.min_hosts,
        rules.min_vsan_version,
        rules.capacity_multiplier,
        rules.capacity_overhead_pct,
        rules.redundancy_bytes_per_data_byte,
        rules.replica_capacity_delta_pct,
        rules.capacity_vs_raid1_ftt1_pct,
        rules.backend_writes_per_frontend_write,
        rules.backend_reads_per_frontend_write,
        rules.backend_ios_per_frontend_write,
        rules.is_valid_on_cluster,
        used_policies.result_count is not null as is_used_by_results,
        coalesce(used_policies.result_count, 0) as result_count,

        -- metadata
        case
            when rules.policy_rule_id is null and policies_listed.nodes is null
                then
                    'no rule without a cluster size: '
                    || policies_listed.architecture || ' '
                    || policies_listed.ftm
                    || ' depends on it'
            when rules.policy_rule_id is null
                then
                    'no storage-policy rule for '
                    || policies_listed.architecture
                    || ' ' || policies_listed.ftm || ' FTT='
                    || policies_listed.ftt
            when not rules.is_valid_on_cluster
                then
                    policies_listed.ftm || ' FTT=' || policies_listed.ftt
                    || ' needs '
                    || rules.min_hosts
                    || ' hosts, the cluster has '
                    || policies_listed.nodes
        end as invalid_reason

    from policies_listed
    left join int_storage_policy_rules_by_cluster_size as rules
        on {{ storage_policy_rule_of('policies_listed') }}
    left join used_policies
        on
            policies_listed.testbed = used_policies.testbed
            and policies_listed.nodes is not distinct from used_policies.nodes
            and policies_listed.architecture = used_policies.architecture
            and policies_listed.ftm = used_policies.ftm
            and policies_listed.ftt = used_policies.ftt
    left join clusters
        on
            policies_listed.testbed = clusters.testbed
            and policies_listed.nodes is not distinct from clusters.nodes
            and policies_listed.architecture = clusters.architecture

)

select * from policies_costed
