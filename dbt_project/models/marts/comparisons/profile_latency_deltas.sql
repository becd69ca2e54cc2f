with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where testbed is not null and profile is not null

),

profile_orders_of_testbeds as (

    -- the longest profile_order any result of the testbed was labelled
    -- with; of two as long, the greater list (a fixed choice: arg_max on
    -- the length alone took whichever the query plan read last)
    select
        testbed,
        arg_max(
            profile_order,
            struct_pack(
                length := len(profile_order), profile_order := profile_order
            )
        ) as profile_order

    from fct_workload_results
    group by testbed

),

profiles_aggregated as (

    -- repeats of one workload on one profile: mean IOPS and IOPS-weighted
    -- mean latency. Disk groups and nodes are part of the grain: runs of one
    -- profile on 1 and 2 disk groups (SFD7) are different results
    select
        testbed,
        working_set,
        disk_groups,
        nodes,
        read_pct,
        block_size_bytes,
        random_pct,
        profile,
        count(*) as result_count,
        avg(iops) as iops,
        sum(avg_latency_ms * iops) / nullif(sum(iops), 0) as avg_latency_ms

    from fct_workload_results
    group by all

),

profiles_ordered as (

    select
        profiles_aggregated.*,
        coalesce(
            profile_orders_of_testbeds.profile_order[1], 'baseline'
        ) as baseline_profile,
        case
            when
                list_position(
                    profile_orders_of_testbeds.profile_order,
                    profiles_aggregated.profile
                ) > 1
                then
                    profile_orders_of_testbeds.profile_order[
                        list_position(
                            profile_orders_of_testbeds.profile_order,
                            profiles_aggregated.profile
                        ) - 1
                    ]
        end as previous_profile,
        list_position(
            profile_orders_of_testbeds.profile_order,
            profiles_aggregated.profile
        ) as profile_position

    from profiles_aggregated
    left join profile_orders_of_testbeds
        on profiles_aggregated.testbed = profile_orders_of_testbeds.testbed

),

baseline_profiles as (

    select * from profiles_ordered

),

previous_profiles as (

    select * from profiles_ordered

),

profiles_compared as (

    select
        -- dimensions
        profiles_ordered.testbed,
        profiles_ordered.working_set,
        profiles_ordered.disk_groups,
        profiles_ordered.nodes,
        profiles_ordered.read_pct,
        profiles_ordered.block_size_bytes,
        profiles_ordered.random_pct,
        profiles_ordered.profile,
        profiles_ordered.profile_position,
        profiles_ordered.baseline_profile,
        profiles_ordered.previous_profile,

        -- facts
        profiles_ordered.result_count,
        profiles_ordered.iops,
        profiles_ordered.avg_latency_ms,
        baseline_profiles.iops as baseline_iops,
        baseline_profiles.avg_latency_ms as baseline_avg_latency_ms,
        previous_profiles.iops as previous_iops,
        previous_profiles.avg_latency_ms as previous_avg_latency_ms,
        {{ pct_change(
            'profiles_ordered.iops',
            'baseline_profiles.iops'
        ) }} as iops_vs_baseline_pct,
        {{ pct_change(
            'profiles_ordered.avg_latency_ms',
            'baseline_profiles.avg_latency_ms'
        ) }} as latency_vs_baseline_pct,
        {{ pct_change(
            'profiles_ordered.iops',
            'previous_profiles.iops'
        ) }} as iops_vs_previous_pct,
        {{ pct_change(
            'profiles_ordered.avg_latency_ms',
            'previous_profiles.avg_latency_ms'
        ) }} as latency_vs_previous_pct

    from profiles_ordered
    left join baseline_profiles
        on
            profiles_ordered.testbed = baseline_profiles.testbed
            and profiles_ordered.working_set
            is not distinct from baseline_profiles.working_set
            and profiles_ordered.disk_groups
            is not distinct from baseline_profiles.disk_groups
            and profiles_ordered.nodes
            is not distinct from baseline_profiles.nodes
            and profiles_ordered.read_pct
            is not distinct from baseline_profiles.read_pct
            and profiles_ordered.block_size_bytes
            is not distinct from baseline_profiles.block_size_bytes
            and profiles_ordered.random_pct
            is not distinct from baseline_profiles.random_pct
            and profiles_ordered.baseline_profile = baseline_profiles.profile
    left join previous_profiles
        on
            profiles_ordered.testbed = previous_profiles.testbed
            and profiles_ordered.working_set
            is not distinct from previous_profiles.working_set
            and profiles_ordered.disk_groups
            is not distinct from previous_profiles.disk_groups
            and profiles_ordered.nodes
            is not distinct from previous_profiles.nodes
            and profiles_ordered.read_pct
            is not distinct from previous_profiles.read_pct
            and profiles_ordered.block_size_bytes
            is not distinct from previous_profiles.block_size_bytes
            and profiles_ordered.random_pct
            is not distinct from previous_profiles.random_pct
            and profiles_ordered.previous_profile = previous_profiles.profile

)

select * from profiles_compared
