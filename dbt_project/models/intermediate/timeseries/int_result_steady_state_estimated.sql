{#- One row per workload result with intervals: its steady-state window
    (int_result_steady_state_windows) and the 95 % confidence interval of
    its mean IOPS, MB/s and latency by the method of non-overlapping batch
    means (Law & Kelton, Simulation Modeling and Analysis, ch. 9): interval
    values are autocorrelated, so their own standard deviation understates
    the error of the mean; means of longer batches are nearly independent.
    The window's n intervals form b = min(floor(sqrt(n)), ci_max_batches)
    batches of m = floor(n / b) intervals (the first n - b m intervals, those
    nearest the ramp-up, are left out); CI = mean of the batch means
    +- t(b - 1, 0.975) x s / sqrt(b), s the batch means' sample standard
    deviation; a lower bound below zero is cut at zero. Batch IOPS and MB/s are time-weighted means (I/O over time),
    batch latency is weighted by I/O count. With fewer than ci_min_batches
    batches there is no CI (`too_few_intervals`) and the means are the
    window's own. fct_result_steady_state publishes it as it is. -#}
{%- set max_batches = var('ci_max_batches') -%}
{%- set min_batches = var('ci_min_batches') -%}
with

{{ import_ctes([
    'int_result_intervals_sequenced',
    'int_result_steady_state_windows',
]) }},

window_intervals as (

    select
        int_result_intervals_sequenced.*,
        -- a lone Vdbench interval has no known length; one interval's
        -- weighted mean is its own value whatever the weight
        coalesce(int_result_intervals_sequenced.interval_length_s, 1.0)
            as time_weight,
        int_result_intervals_sequenced.iops
        * coalesce(int_result_intervals_sequenced.interval_length_s, 1.0)
            as io_weight,
        int_result_intervals_sequenced.interval_position
        - int_result_steady_state_windows.window_first_position
            as position_in_window,
        int_result_steady_state_windows.window_last_position
        - int_result_steady_state_windows.window_first_position
        + 1 as window_interval_count

    from int_result_intervals_sequenced
    inner join int_result_steady_state_windows
        on
            int_result_intervals_sequenced.result_id
            = int_result_steady_state_windows.result_id
            and int_result_intervals_sequenced.interval_position
            between int_result_steady_state_windows.window_first_position
            and int_result_steady_state_windows.window_last_position

),

batch_plans as (

    select distinct
        result_id,
        window_interval_count,
        {{ batch_count('window_interval_count', max_batches) }} as batch_count

    from window_intervals

),

batch_sizes as (

    select
        result_id,
        batch_count,
        window_interval_count // batch_count as batch_size,
        window_interval_count % batch_count as dropped_interval_count

    from batch_plans
    where batch_count >= {{ min_batches }}

),

batch_means as (

    select
        window_intervals.result_id,
        (
            window_intervals.position_in_window
            - batch_sizes.dropped_interval_count
        )
        // batch_sizes.batch_size as batch_index,
        {{ weighted_mean(
            'window_intervals.iops', 'window_intervals.time_weight'
        ) }} as iops,
        {{ weighted_mean(
            'window_intervals.throughput_mb_s', 'window_intervals.time_weight'
        ) }} as throughput_mb_s,
        {{ weighted_mean(
            'window_intervals.avg_latency_ms', 'window_intervals.io_weight'
        ) }} as avg_latency_ms

    from window_intervals
    inner join batch_sizes
        on window_intervals.result_id = batch_sizes.result_id
    where
        window_intervals.position_in_window
        >= batch_sizes.dropped_interval_count
    group by all

),

batch_statistics as (

    select
        result_id,
        count(*) as batch_count,
        avg(iops) as iops_mean,
        stddev_samp(iops) as iops_stddev,
        avg(throughput_mb_s) as throughput_mb_s_mean,
        stddev_samp(throughput_mb_s) as throughput_mb_s_stddev,
        avg(avg_latency_ms) as avg_latency_ms_mean,
        stddev_samp(avg_latency_ms) as avg_latency_ms_stddev

    from batch_means
    group by result_id

),

window_means as (

    select
        result_id,
        min(start_s) as window_start_s,
        max(end_s) as window_end_s,
        {{ weighted_mean('iops', 'time_weight') }} as iops_mean,
        {{ weighted_mean('throughput_mb_s', 'time_weight') }}
            as throughput_mb_s_mean,
        {{ weighted_mean('avg_latency_ms', 'io_weight') }}
            as avg_latency_ms_mean

    from window_intervals
    group by result_id

),

steady_state as (

    select
        -- identifiers
        windows.result_id,

        -- steady state
        windows.interval_count,
        windows.is_steady_state,
        windows.steady_state_criterion,
        case when windows.is_steady_state then window_means.window_start_s end
            as steady_state_start_s,
        case when windows.is_steady_state then window_means.window_end_s end
            as steady_state_end_s,
        case
            when windows.is_steady_state
                then
                    windows.window_last_position
                    - windows.window_first_position
                    + 1
        end as steady_state_interval_count,

        -- the intervals the means and the CI are over
        window_means.window_start_s as ci_window_start_s,
        window_means.window_end_s as ci_window_end_s,
        windows.window_last_position - windows.window_first_position + 1
            as ci_window_interval_count,
        batch_sizes.batch_count,
        batch_sizes.batch_size,
        case
            when batch_statistics.result_id is not null then 'batch_means'
            else 'too_few_intervals'
        end as ci_method,

        -- means and their 95 % confidence intervals
    {%- for metric in ['iops', 'throughput_mb_s', 'avg_latency_ms'] %}
        coalesce(
            batch_statistics.{{ metric }}_mean, window_means.{{ metric }}_mean
        )
            as {{ metric }}_mean,
        -- a rate or a latency is never below zero, so neither is its bound
        -- (DuckDB's greatest skips NULL: no CI must stay NULL)
        case
            when
                batch_statistics.result_id is not null
                then greatest(0.0, {{ ci95_bound(
            'batch_statistics.' ~ metric ~ '_mean',
            'batch_statistics.' ~ metric ~ '_stddev',
            'batch_statistics.batch_count', '-'
        ) }})
        end as {{ metric }}_ci95_low,
        {{ ci95_bound(
            'batch_statistics.' ~ metric ~ '_mean',
            'batch_statistics.' ~ metric ~ '_stddev',
            'batch_statistics.batch_count', '+'
        ) }} as {{ metric }}_ci95_high{{ ',' if not loop.last }}
    {%- endfor %}

    from int_result_steady_state_windows as windows
    inner join window_means
        on windows.result_id = window_means.result_id
    left join batch_sizes
        on windows.result_id = batch_sizes.result_id
    left join batch_statistics
        on windows.result_id = batch_statistics.result_id

)

select * from steady_state
