{#- One row per sweep x result: the results of one testbed that differ only
    in one ordered axis (they share H1's leave-one-out signature for that
    axis) and take at least two values on it, with the measures a sweep
    point needs. Results without a testbed label are left out: nothing says
    they ran on one cluster. A result whose axis has no order (a working
    set named only `cache`) is not a point. -#}

with

{{ import_ctes([
    'int_result_comparison_dimensions',
    'int_workload_results_completed',
]) }},

axis_values as (

    select
        result_id,
        testbed_id,
        dimension as axis,
        dimension_value as axis_value_text,
        sort_value as axis_value,
        {{ sweep_axis_unit('dimension', 'dimension_value') }} as axis_unit,
        signature_without_dimension,
        {{ hashed_key([
            'testbed_id',
            'dimension',
            sweep_axis_unit('dimension', 'dimension_value'),
            'signature_without_dimension'
        ]) }} as sweep_id

    from int_result_comparison_dimensions
    where
        dimension in {{ sql_text_list(sweep_axes()) }}
        and sort_value is not null
        and testbed_id != '-1'

),

axis_values_counted as (

    select
        *,
        count(distinct axis_value) over (partition by sweep_id) as point_count

    from axis_values

),

per_result_ratios as (

    -- H1's derived workload values (one rule, in one place): VMs per host
    -- and outstanding I/O per VM
    select
        result_id,
        max(sort_value) filter (where dimension = 'vms_per_host')
            as vms_per_host,
        max(sort_value) filter (where dimension = 'outstanding_io_per_vm')
            as outstanding_io_per_vm

    from int_result_comparison_dimensions
    where dimension in ('vms_per_host', 'outstanding_io_per_vm')
    group by result_id

),

members_measured as (

    select
        -- identifiers
        axis_values_counted.sweep_id,
        axis_values_counted.result_id,
        axis_values_counted.testbed_id,
        axis_values_counted.signature_without_dimension,

        -- dimensions
        int_workload_results_completed.testbed,
        axis_values_counted.axis,
        axis_values_counted.axis_value,
        axis_values_counted.axis_value_text,
        axis_values_counted.axis_unit,
        axis_values_counted.point_count,
        int_workload_results_completed.nodes,
        int_workload_results_completed.vm_count,
        per_result_ratios.vms_per_host,
        int_workload_results_completed.outstanding_io,
        per_result_ratios.outstanding_io_per_vm,
        int_workload_results_completed.read_pct,
        int_workload_results_completed.random_pct,
        int_workload_results_completed.block_size_bytes,
        int_workload_results_completed.disk_groups,

        -- timestamps
        int_workload_results_completed.started_at,

        -- facts
        int_workload_results_completed.iops,
        int_workload_results_completed.throughput_mb_s,
        int_workload_results_completed.avg_latency_ms,
        int_workload_results_completed.p95_latency_ms,
        int_workload_results_completed.p99_latency_ms,
        int_workload_results_completed.is_partial

    from axis_values_counted
    inner join int_workload_results_completed
        on
            axis_values_counted.result_id
            = int_workload_results_completed.result_id
    left join per_result_ratios
        on axis_values_counted.result_id = per_result_ratios.result_id
    where axis_values_counted.point_count >= 2

)

select * from members_measured
