{#- One row per sweep x result: the results of one testbed that differ only
    in one ordered axis (they share H1's leave-one-out signature for that
    axis) and take at least two values on it, with the measures a sweep
    point needs. Results without a testbed label are left out: nothing says
    they ran on one cluster. A result whose axis has no order (a working
    set named only `cache`) is not a point. -#}

with

{{ import_ctes(['int_result_comparison_dimensions', 'fct_workload_results']) }},

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
        fct_workload_results.testbed,
        axis_values_counted.axis,
        axis_values_counted.axis_value,
        axis_values_counted.axis_value_text,
        axis_values_counted.axis_unit,
        axis_values_counted.point_count,
        fct_workload_results.nodes,
        fct_workload_results.vm_count,
        per_result_ratios.vms_per_host,
        fct_workload_results.outstanding_io,
        per_result_ratios.outstanding_io_per_vm,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.disk_groups,

        -- timestamps
        fct_workload_results.started_at,

        -- facts
        fct_workload_results.iops,
        fct_workload_results.throughput_mb_s,
        fct_workload_results.avg_latency_ms,
        fct_workload_results.p95_latency_ms,
        fct_workload_results.p99_latency_ms,
        fct_workload_results.is_partial

    from axis_values_counted
    inner join fct_workload_results
        on axis_values_counted.result_id = fct_workload_results.result_id
    left join per_result_ratios
        on axis_values_counted.result_id = per_result_ratios.result_id
    where axis_values_counted.point_count >= 2

)

select * from members_measured
