{#- One row per sweep x point, in axis order (int_sweep_points): the point's
    workload, its measures and how it compares with the previous point, the
    first point and the sweep's best; which point is the knee and which are
    the best. -#}

with

{{ import_ctes(['int_sweep_points']) }},

points_published as (

    select
        -- identifiers
        sweep_id,
        result_id,
        testbed_id,

        -- dimensions
        testbed,
        axis,
        point_index,
        point_count,
        run_count,
        axis_value,
        axis_value_text,
        axis_unit,
        nodes,
        vm_count,
        vms_per_host,
        outstanding_io,
        outstanding_io_per_vm,
        outstanding_io_per_host,
        read_pct,
        random_pct,
        block_size_bytes,
        disk_groups,

        -- facts
        iops,
        throughput_mb_s,
        avg_latency_ms,
        p95_latency_ms,
        p99_latency_ms,
        latency_elasticity,
        iops_vs_first_pct,
        iops_vs_previous_pct,
        iops_share_of_best_pct,
        throughput_share_of_best_pct,
        scaling_efficiency_pct,
        scaling_efficiency_vs_previous_pct,

        -- flags
        is_past_knee_segment,
        is_knee,
        knee_status,
        is_best_iops,
        is_best_throughput,
        is_near_best_iops,
        is_near_best_throughput,
        is_partial

    from int_sweep_points

)

select * from points_published
