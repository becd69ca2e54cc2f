{#- One row per sweep x latency target (var latency_targets_ms): the highest
    IOPS the sweep sustains at a mean latency at or under the target.
    Candidates are the measured points at or under it and, on every step
    whose latency passes through the target, the point at exactly the
    target on the straight line between the two measured points (marked
    is_interpolated). NULL when no point is at or under the target (the
    first point already over it, latency rising). -#}

with

{{ import_ctes(['int_sweep_points']) }},

latency_targets as (

    select
        unnest(
            cast([{{ latency_targets_ms() | join(', ') }}] as double[])
        ) as latency_target_ms

),

sweeps_targeted as (

    select distinct
        int_sweep_points.sweep_id,
        latency_targets.latency_target_ms

    from int_sweep_points
    cross join latency_targets

),

points_under_target as (

    select
        sweeps_targeted.sweep_id,
        sweeps_targeted.latency_target_ms,
        int_sweep_points.iops,
        int_sweep_points.axis_value,
        false as is_interpolated

    from sweeps_targeted
    inner join int_sweep_points
        on sweeps_targeted.sweep_id = int_sweep_points.sweep_id
    where
        int_sweep_points.avg_latency_ms <= sweeps_targeted.latency_target_ms

),

steps_through_target as (

    -- the previous point and this one lie on either side of the target
    select
        sweeps_targeted.sweep_id,
        sweeps_targeted.latency_target_ms,
        {{ interpolated_at(
            'sweeps_targeted.latency_target_ms',
            'int_sweep_points.previous_avg_latency_ms',
            'int_sweep_points.previous_iops',
            'int_sweep_points.avg_latency_ms',
            'int_sweep_points.iops'
        ) }} as iops,
        {{ interpolated_at(
            'sweeps_targeted.latency_target_ms',
            'int_sweep_points.previous_avg_latency_ms',
            'int_sweep_points.previous_axis_value',
            'int_sweep_points.avg_latency_ms',
            'int_sweep_points.axis_value'
        ) }} as axis_value,
        true as is_interpolated

    from sweeps_targeted
    inner join int_sweep_points
        on sweeps_targeted.sweep_id = int_sweep_points.sweep_id
    where
        (
            int_sweep_points.previous_avg_latency_ms
            - sweeps_targeted.latency_target_ms
        )
        * (
            int_sweep_points.avg_latency_ms
            - sweeps_targeted.latency_target_ms
        ) < 0

),

candidates_ranked as (

    -- the highest IOPS; of equal ones a measured point before an
    -- interpolated one, then the smallest axis value
    select
        *,
        row_number() over (
            partition by sweep_id, latency_target_ms
            order by iops desc, is_interpolated asc, axis_value asc
        ) as candidate_rank

    from (
        select * from points_under_target
        union all
        select * from steps_through_target
    ) as candidates
    where iops is not null

),

targets_met as (

    select
        sweeps_targeted.sweep_id,
        sweeps_targeted.latency_target_ms,
        candidates_ranked.iops as iops_within_target,
        candidates_ranked.axis_value as axis_value_at_target,
        candidates_ranked.is_interpolated

    from sweeps_targeted
    left join candidates_ranked
        on
            sweeps_targeted.sweep_id = candidates_ranked.sweep_id
            and sweeps_targeted.latency_target_ms
            = candidates_ranked.latency_target_ms
            and candidates_ranked.candidate_rank = 1

)

select * from targets_met
