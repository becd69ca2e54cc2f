{#- One row per sweep: the results of one testbed that differ only in one
    ordered axis. What was held equal, the best points by IOPS and by MB/s
    (with every point near the best), the latency knee, the highest IOPS
    within each latency target and the scaling efficiency of the last
    point (docs/ANALYSES.md). -#}

with

{{ import_ctes([
    'int_sweep_points',
    'int_sweep_latency_targets',
    'int_sweep_members',
    'int_result_comparison_dimensions',
]) }},

held_equal as (

    -- every other counted dimension, read off the sweep's first result:
    -- they are equal on every point (one leave-one-out signature). Keys in
    -- name order: json_group_object keeps arrival order, which changes from
    -- build to build, and takes no ORDER BY in DuckDB 1.5.
    select
        int_sweep_members.sweep_id,
        to_json(map_from_entries(list(
            struct_pack(
                k := int_result_comparison_dimensions.dimension,
                v := int_result_comparison_dimensions.dimension_value
            )
            order by int_result_comparison_dimensions.dimension
        ))) as held_equal_json

    from int_sweep_points
    inner join int_sweep_members
        on
            int_sweep_points.sweep_id = int_sweep_members.sweep_id
            and int_sweep_points.result_id = int_sweep_members.result_id
    inner join int_result_comparison_dimensions
        on
            int_sweep_members.result_id
            = int_result_comparison_dimensions.result_id
            and int_sweep_members.axis
            != int_result_comparison_dimensions.dimension
    where int_sweep_points.point_index = 1
    group by int_sweep_members.sweep_id

),

targets_pivoted as (

    -- one column triple per latency target
    select
        sweep_id,
        {%- for target in latency_targets_ms() %}
            {%- set name = latency_target_name(target) %}
            max(iops_within_target) filter (
                where latency_target_ms = {{ target }}
            ) as iops_within_{{ name }},
            max(axis_value_at_target) filter (
                where latency_target_ms = {{ target }}
            ) as iops_within_{{ name }}_axis_value,
            bool_or(is_interpolated) filter (
                where latency_target_ms = {{ target }}
            ) as iops_within_{{ name }}_is_interpolated,
        {%- endfor %}
        count(*) as latency_target_count

    from int_sweep_latency_targets
    group by sweep_id

),

points_summarised as (

    select
        sweep_id,
        testbed_id,
        testbed,
        axis,
        axis_unit,
        point_count,
        min(axis_value) as first_axis_value,
        max(axis_value) as last_axis_value,
        sum(run_count) as result_count,
        bool_or(is_partial) as has_partial_points,

        -- the workload held equal (NULL when it varies along the sweep)
        {{ sweep_workload_columns() }},

        -- best by IOPS (of exact ties the smallest axis value) and every
        -- point within sweep_near_best_pct of it
        max(iops) as best_iops,
        min(axis_value) filter (where is_best_iops) as best_iops_axis_value,
        list_sort(list(axis_value) filter (where is_near_best_iops))
            as near_best_iops_axis_values,
        max(throughput_mb_s) as best_throughput_mb_s,
        min(axis_value) filter (where is_best_throughput)
            as best_throughput_axis_value,
        list_sort(list(axis_value) filter (where is_near_best_throughput))
            as near_best_throughput_axis_values,

        -- the latency knee
        any_value(knee_status) as knee_status,
        max(axis_value) filter (where is_knee) as knee_axis_value,
        max(scaling_efficiency_pct) filter (where point_index = point_count)
            as last_scaling_efficiency_pct

    from int_sweep_points
    group by sweep_id, testbed_id, testbed, axis, axis_unit, point_count

),

sweeps_described as (

    select
        -- identifiers
        points_summarised.sweep_id,
        points_summarised.testbed_id,
        best_iops_point.result_id as best_iops_result_id,
        best_throughput_point.result_id as best_throughput_result_id,
        knee_point.result_id as knee_result_id,

        -- dimensions
        points_summarised.testbed,
        points_summarised.axis,
        points_summarised.axis_unit,
        points_summarised.point_count,
        points_summarised.result_count,
        points_summarised.first_axis_value,
        points_summarised.last_axis_value,
        held_equal.held_equal_json,
        points_summarised.nodes,
        points_summarised.vm_count,
        points_summarised.vms_per_host,
        points_summarised.outstanding_io,
        points_summarised.outstanding_io_per_vm,
        points_summarised.read_pct,
        points_summarised.random_pct,
        points_summarised.block_size_bytes,
        points_summarised.disk_groups,

        -- facts: best points
        points_summarised.best_iops,
        points_summarised.best_iops_axis_value,
        points_summarised.near_best_iops_axis_values,
        best_iops_point.vm_count as best_iops_vm_count,
        best_iops_point.outstanding_io as best_iops_outstanding_io,
        best_iops_point.outstanding_io_per_host
            as best_iops_outstanding_io_per_host,
        points_summarised.best_throughput_mb_s,
        points_summarised.best_throughput_axis_value,
        points_summarised.near_best_throughput_axis_values,

        -- facts: knee
        points_summarised.knee_status,
        points_summarised.knee_axis_value,
        knee_point.vm_count as knee_vm_count,
        knee_point.outstanding_io_per_host as knee_outstanding_io_per_host,
        knee_point.iops as knee_iops,
        knee_point.avg_latency_ms as knee_avg_latency_ms,

        -- facts: latency targets and scaling
        {%- for target in latency_targets_ms() %}
            {%- set name = latency_target_name(target) %}
            targets_pivoted.iops_within_{{ name }},
            targets_pivoted.iops_within_{{ name }}_axis_value,
            targets_pivoted.iops_within_{{ name }}_is_interpolated,
        {%- endfor %}
        points_summarised.last_scaling_efficiency_pct,

        -- flags
        points_summarised.has_partial_points

    from points_summarised
    left join held_equal
        on points_summarised.sweep_id = held_equal.sweep_id
    left join targets_pivoted
        on points_summarised.sweep_id = targets_pivoted.sweep_id
    left join int_sweep_points as best_iops_point
        on
            points_summarised.sweep_id = best_iops_point.sweep_id
            and points_summarised.best_iops_axis_value
            = best_iops_point.axis_value
    left join int_sweep_points as best_throughput_point
        on
            points_summarised.sweep_id = best_throughput_point.sweep_id
            and points_summarised.best_throughput_axis_value
            = best_throughput_point.axis_value
    left join int_sweep_points as knee_point
        on
            points_summarised.sweep_id = knee_point.sweep_id
            and points_summarised.knee_axis_value = knee_point.axis_value

)

select * from sweeps_described
