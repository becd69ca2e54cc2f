{#- One row per sweep x point, in axis order: repeated runs at one axis
    value are one point (means over the runs, the first run's result_id),
    compared with the previous point, the first point and the sweep's best
    (docs/ANALYSES.md has each formula and its reference). -#}

with

{{ import_ctes(['int_sweep_members']) }},

runs_ranked as (

    select
        *,
        row_number() over (
            partition by sweep_id, axis_value
            order by started_at, result_id
        ) as run_rank

    from int_sweep_members

),

points_aggregated as (

    select
        sweep_id,
        testbed_id,
        testbed,
        axis,
        axis_unit,
        axis_value,
        point_count,
        min(axis_value_text) as axis_value_text,
        min(result_id) filter (where run_rank = 1) as result_id,
        count(*) as run_count,
        {{ sweep_workload_columns() }},
        avg(iops) as iops,
        avg(throughput_mb_s) as throughput_mb_s,
        avg(avg_latency_ms) as avg_latency_ms,
        avg(p95_latency_ms) as p95_latency_ms,
        avg(p99_latency_ms) as p99_latency_ms,
        bool_or(is_partial) as is_partial

    from runs_ranked
    group by
        sweep_id, testbed_id, testbed, axis, axis_unit, axis_value, point_count

),

points_ordered as (

    select
        *,
        row_number() over sweep_order as point_index,
        first_value(axis_value) over sweep_order as first_axis_value,
        first_value(iops) over sweep_order as first_iops,
        lag(axis_value) over sweep_order as previous_axis_value,
        lag(iops) over sweep_order as previous_iops,
        lag(avg_latency_ms) over sweep_order as previous_avg_latency_ms,
        max(iops) over (partition by sweep_id) as best_iops,
        max(throughput_mb_s) over (partition by sweep_id)
            as best_throughput_mb_s

    from points_aggregated
    window sweep_order as (partition by sweep_id order by axis_value)

),

segments_measured as (

    -- the step from the previous point to this one, in logarithms (NULL
    -- when a value is missing or not positive)
    select
        *,
        case
            when
                iops > 0 and previous_iops > 0
                and avg_latency_ms > 0 and previous_avg_latency_ms > 0
                then ln(iops / previous_iops)
        end as iops_log_step,
        case
            when
                iops > 0 and previous_iops > 0
                and avg_latency_ms > 0 and previous_avg_latency_ms > 0
                then ln(avg_latency_ms / previous_avg_latency_ms)
        end as latency_log_step

    from points_ordered

),

points_compared as (

    select
        *,
        -- d ln(latency) / d ln(IOPS): only while IOPS grow (a falling or
        -- flat IOPS step has no elasticity to read)
        case
            when iops_log_step > 0 then latency_log_step / iops_log_step
        end as latency_elasticity,
        -- past the knee: latency rises faster than IOPS (Kleinrock's power
        -- IOPS / latency falls while latency rises); load axes only
        case
            when axis in {{ sql_text_list(sweep_load_axes()) }}
                then latency_log_step > greatest(iops_log_step, 0)
        end as is_past_knee_segment,
        {{ pct_change('iops', 'first_iops') }} as iops_vs_first_pct,
        {{ pct_change('iops', 'previous_iops') }} as iops_vs_previous_pct,
        100.0 * iops / nullif(best_iops, 0) as iops_share_of_best_pct,
        100.0 * throughput_mb_s / nullif(best_throughput_mb_s, 0)
            as throughput_share_of_best_pct,
        case
            when
                axis in {{ sql_text_list(sweep_count_axes()) }}
                and axis_value > 0 and first_axis_value > 0
                then
                    100.0 * iops
                    / nullif(first_iops * axis_value / first_axis_value, 0)
        end as scaling_efficiency_pct,
        case
            when
                axis in {{ sql_text_list(sweep_count_axes()) }}
                and axis_value > 0 and previous_axis_value > 0
                then
                    100.0 * iops
                    / nullif(
                        previous_iops * axis_value / previous_axis_value, 0
                    )
        end as scaling_efficiency_vs_previous_pct,
        outstanding_io / nullif(nodes, 0) as outstanding_io_per_host

    from segments_measured

),

knee_located as (

    -- the knee is the last point before the first segment past it; a
    -- segment of unknown latency before that leaves the knee unknown
    select
        *,
        min(point_index) filter (where is_past_knee_segment)
            over (partition by sweep_id) as first_past_knee_index,
        min(point_index) filter (
            where point_index > 1 and is_past_knee_segment is null
        ) over (partition by sweep_id) as first_unknown_segment_index

    from points_compared

),

knee_classified as (

    select
        *,
        case
            when axis not in {{ sql_text_list(sweep_load_axes()) }}
                then 'not_a_load_axis'
            when point_count < 3 then 'too_few_points'
            when
                first_unknown_segment_index
                < coalesce(first_past_knee_index, point_count + 1)
                then 'latency_missing'
            when first_past_knee_index is null then 'not_reached'
            when first_past_knee_index = 2 then 'at_first_point'
            else 'inside'
        end as knee_status

    from knee_located

),

points_flagged as (

    select
        * exclude (first_unknown_segment_index),
        knee_status in ('inside', 'at_first_point')
        and point_index = first_past_knee_index - 1 as is_knee,
        iops = best_iops as is_best_iops,
        throughput_mb_s = best_throughput_mb_s as is_best_throughput,
        iops >= best_iops * (1 - {{ sweep_near_best_pct() }} / 100.0)
            as is_near_best_iops,
        throughput_mb_s
        >= best_throughput_mb_s * (1 - {{ sweep_near_best_pct() }} / 100.0)
            as is_near_best_throughput

    from knee_classified

)

select * from points_flagged
