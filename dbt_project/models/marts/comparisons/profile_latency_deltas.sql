{#- One row per configuration with a storage-policy profile (repeated runs
    are one configuration, their mean): its IOPS and latency against the
    configuration that differs from it in the profile alone (the policy
    labels the profile sets included) and runs the baseline profile (first
    of the testbed's profile_order), and the one that runs the previous
    profile of that order. Every other label is held equal, so no row
    averages over results of unlike configurations. -#}

with

{{ import_ctes([
    'int_comparison_configurations',
    'int_result_comparison_dimensions',
    'fct_workload_results',
]) }},

profile_orders_of_testbeds as (

    -- the longest profile_order any result of the testbed was labelled
    -- with; of two as long, the greater list (a fixed choice: arg_max on
    -- the length alone took whichever the query plan read last)
    select
        testbed_id,
        arg_max(
            profile_order,
            struct_pack(
                length := len(profile_order), profile_order := profile_order
            )
        ) as profile_order

    from fct_workload_results
    where profile is not null
    group by testbed_id

),

configurations_profiled as (

    -- a configuration's profile dimension, and the signature of all its
    -- other dimensions: configurations sharing it differ in the profile
    -- alone
    select
        int_comparison_configurations.first_result_id as result_id,
        int_comparison_configurations.run_count,
        int_comparison_configurations.iops,
        int_comparison_configurations.avg_latency_ms,
        int_result_comparison_dimensions.testbed_id,
        int_result_comparison_dimensions.primary_value as profile,
        int_result_comparison_dimensions.dimension_value as profile_value,
        int_result_comparison_dimensions.signature_without_dimension,
        coalesce(profile_orders_of_testbeds.profile_order[1], 'baseline')
            as baseline_profile,
        list_position(
            profile_orders_of_testbeds.profile_order,
            int_result_comparison_dimensions.primary_value
        ) as profile_position,
        profile_orders_of_testbeds.profile_order

    from int_comparison_configurations
    inner join int_result_comparison_dimensions
        on
            int_comparison_configurations.first_result_id
            = int_result_comparison_dimensions.result_id
            and int_result_comparison_dimensions.dimension = 'profile'
    left join profile_orders_of_testbeds
        on
            int_result_comparison_dimensions.testbed_id
            = profile_orders_of_testbeds.testbed_id
    where int_result_comparison_dimensions.primary_value is not null

),

configurations_ordered as (

    select
        *,
        case
            when profile_position > 1
                then profile_order[profile_position - 1]
        end as previous_profile

    from configurations_profiled

),

baseline_configurations as (

    select * from configurations_ordered

),

previous_configurations as (

    select * from configurations_ordered

),

profiles_compared as (

    select
        -- identifiers
        configurations_ordered.result_id,
        baseline_configurations.result_id as baseline_result_id,
        previous_configurations.result_id as previous_result_id,
        configurations_ordered.testbed_id,

        -- dimensions: the profile and the context held equal
        fct_workload_results.testbed,
        fct_workload_results.working_set,
        {{ free_form_label_number(
            'working_set_gb', 'fct_workload_results.labels_json'
        ) }} as working_set_gb,
        fct_workload_results.disk_groups,
        fct_workload_results.nodes,
        fct_workload_results.vm_count,
        fct_workload_results.read_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.random_pct,
        fct_workload_results.outstanding_io,
        configurations_ordered.profile,
        configurations_ordered.profile_value,
        configurations_ordered.profile_position,
        configurations_ordered.baseline_profile,
        configurations_ordered.previous_profile,

        -- facts
        configurations_ordered.run_count as result_count,
        configurations_ordered.iops,
        configurations_ordered.avg_latency_ms,
        baseline_configurations.iops as baseline_iops,
        baseline_configurations.avg_latency_ms as baseline_avg_latency_ms,
        previous_configurations.iops as previous_iops,
        previous_configurations.avg_latency_ms as previous_avg_latency_ms,
        {{ pct_change(
            'configurations_ordered.iops',
            'baseline_configurations.iops'
        ) }} as iops_vs_baseline_pct,
        {{ pct_change(
            'configurations_ordered.avg_latency_ms',
            'baseline_configurations.avg_latency_ms'
        ) }} as latency_vs_baseline_pct,
        {{ pct_change(
            'configurations_ordered.iops',
            'previous_configurations.iops'
        ) }} as iops_vs_previous_pct,
        {{ pct_change(
            'configurations_ordered.avg_latency_ms',
            'previous_configurations.avg_latency_ms'
        ) }} as latency_vs_previous_pct

    from configurations_ordered
    inner join fct_workload_results
        on configurations_ordered.result_id = fct_workload_results.result_id
    left join baseline_configurations
        on
            configurations_ordered.signature_without_dimension
            = baseline_configurations.signature_without_dimension
            and configurations_ordered.baseline_profile
            = baseline_configurations.profile
    left join previous_configurations
        on
            configurations_ordered.signature_without_dimension
            = previous_configurations.signature_without_dimension
            and configurations_ordered.previous_profile
            = previous_configurations.profile

)

select * from profiles_compared
