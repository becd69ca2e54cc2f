{#- One row per workload result with intervals: its steady-state window by
    fio's `steadystate` criteria, applied after the run to the interval
    series (docs/ANALYSES.md). A window of W consecutive intervals
    (var steady_state_window_intervals) is steady when
    - `iops`: every interval's IOPS is within L % of the window's mean IOPS
      (var steady_state_iops_limit_pct; fio: max |x - mean| <= L % of mean),
    - and `iops_slope`: the least-squares slope of IOPS over the window's
      intervals is within S % of the window mean per interval (var
      steady_state_iops_slope_limit_pct).
    Both must hold (stricter than fio, which takes one: on a few noisy
    intervals a flat slope alone is often chance); a limit set to null
    turns its criterion off. The steady state is the last unbroken run of
    steady windows: from the first interval of its first window to the
    last of its last. When no
    window is steady (or there are fewer than W intervals), the series never
    settled: the analysis window is every interval after the first (the
    ramp-up), and the row says so. -#}
{%- set window_intervals = var('steady_state_window_intervals') -%}
{%- set iops_limit_pct = var('steady_state_iops_limit_pct') -%}
{%- set slope_limit_pct = var('steady_state_iops_slope_limit_pct') -%}
{%- set criterion = (
    ['iops'] if iops_limit_pct is not none else []
) + (
    ['iops_slope'] if slope_limit_pct is not none else []
) -%}
{%- if not criterion -%}
    {{ exceptions.raise_compiler_error(
        'steady_state_iops_limit_pct and steady_state_iops_slope_limit_pct are both null'
    ) }}
{%- endif -%}
{%- set criterion = criterion | join('_and_') -%}
{#- a criterion turned off (limit null) holds for every window -#}
{%- set iops_check = 'true' if iops_limit_pct is none
    else 'max_deviation_pct <= ' ~ iops_limit_pct -%}
{%- set slope_check = 'true' if slope_limit_pct is none
    else 'slope_pct <= ' ~ slope_limit_pct -%}
with

{{ import_ctes(['int_result_intervals_sequenced']) }},

-- every window of W intervals, named by its first interval's position
windows as (

    select
        window_start.result_id,
        window_start.interval_position as window_first_position,
        count(*) as window_size,
        avg(window_member.iops) as mean_iops,
        max(window_member.iops) as max_iops,
        min(window_member.iops) as min_iops,
        regr_slope(window_member.iops, window_member.interval_position)
            as slope_iops

    from int_result_intervals_sequenced as window_start
    inner join int_result_intervals_sequenced as window_member
        on
            window_start.result_id = window_member.result_id
            and window_member.interval_position
            between window_start.interval_position
            and window_start.interval_position + {{ window_intervals }} - 1
    group by window_start.result_id, window_start.interval_position

),

windows_measured as (

    select
        result_id,
        window_first_position,
        window_size,
        mean_iops,
        100.0 * greatest(max_iops - mean_iops, mean_iops - min_iops)
        / nullif(mean_iops, 0) as max_deviation_pct,
        100.0 * abs(slope_iops) / nullif(mean_iops, 0) as slope_pct

    from windows

),

windows_judged as (

    select
        result_id,
        window_first_position,
        (
            window_size = {{ window_intervals }}
            and mean_iops > 0
            and {{ iops_check }}
            and {{ slope_check }}
        ) as is_steady

    from windows_measured

),

last_steady_window as (

    select
        result_id,
        max(window_first_position) as last_first_position

    from windows_judged
    where is_steady
    group by result_id

),

-- the unbroken run of steady windows that ends with the last one
steady_runs as (

    select
        last_steady_window.result_id,
        last_steady_window.last_first_position,
        coalesce(max(windows_judged.window_first_position) filter (
            where not windows_judged.is_steady
        ), 0) + 1 as run_first_position

    from last_steady_window
    inner join windows_judged
        on
            last_steady_window.result_id = windows_judged.result_id
            and last_steady_window.last_first_position
            >= windows_judged.window_first_position
    group by all

),

results as (

    select distinct
        result_id,
        interval_count

    from int_result_intervals_sequenced

),

windows_chosen as (

    select
        -- identifiers
        results.result_id,

        -- facts
        results.interval_count,
        steady_runs.result_id is not null as is_steady_state,
        case
            when steady_runs.result_id is not null then '{{ criterion }}'
            when results.interval_count < {{ window_intervals }}
                then 'fewer_intervals_than_window'
            else 'not_met'
        end as steady_state_criterion,
        coalesce(
            steady_runs.run_first_position,
            least(2, results.interval_count)
        ) as window_first_position,
        coalesce(
            steady_runs.last_first_position + {{ window_intervals }} - 1,
            results.interval_count
        ) as window_last_position

    from results
    left join steady_runs
        on results.result_id = steady_runs.result_id

)

select * from windows_chosen
