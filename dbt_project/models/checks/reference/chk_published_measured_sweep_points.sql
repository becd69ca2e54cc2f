{#- The values of sweep_points a published figure can be compared with, each
    a comparison of two points, with the labels of the point it describes:
    - iops_ratio: a point's IOPS over another point's of the same sweep
      (SFD7: 70 % read at ~1/4 of 100 % read); `compared_to` is the other
      point's axis value;
    - iops_delta_diff_pp: a point's IOPS change from its sweep's first
      point minus the same change in a sweep that differs in one other
      dimension only, at the same axis value and from the same first value
      (SFD7: the 100 -> 400 GB drop with two disk groups is 7 points worse
      than with one); `compared_to` is the other sweep's value of that
      dimension. -#}

with

{{ import_ctes([
    'sweeps',
    'sweep_points',
    'int_result_comparison_dimensions',
    'int_published_result_labels',
]) }},

points_paired_in_sweep as (

    select
        described.result_id,
        concat_ws('|', described.sweep_id, described.result_id, base.result_id)
            as matched_key,
        base.axis_value_text as compared_to,
        'iops_ratio' as metric,
        described.iops / nullif(base.iops, 0) as measured_value

    from sweep_points as described
    inner join sweep_points as base
        on
            described.sweep_id = base.sweep_id
            and described.point_index != base.point_index

),

points_differing_in_one_dimension as (

    -- two results that differ in exactly one dimension share its
    -- leave-one-out signature (int_result_comparison_dimensions)
    select
        point_dimension.result_id,
        base_dimension.result_id as base_result_id,
        base_dimension.dimension_value as base_value

    from int_result_comparison_dimensions as point_dimension
    inner join int_result_comparison_dimensions as base_dimension
        on
            point_dimension.testbed_id = base_dimension.testbed_id
            and point_dimension.dimension = base_dimension.dimension
            and point_dimension.signature_without_dimension
            = base_dimension.signature_without_dimension
            and point_dimension.dimension_value
            != base_dimension.dimension_value

),

deltas_differenced as (

    select
        described.result_id,
        concat_ws(
            '|',
            described.sweep_id,
            described.result_id,
            base.sweep_id,
            base.result_id
        ) as matched_key,
        pairs.base_value as compared_to,
        'iops_delta_diff_pp' as metric,
        described.iops_vs_first_pct - base.iops_vs_first_pct as measured_value

    from sweep_points as described
    inner join points_differing_in_one_dimension as pairs
        on described.result_id = pairs.result_id
    inner join sweep_points as base
        on
            pairs.base_result_id = base.result_id
            and described.axis = base.axis
            and described.sweep_id != base.sweep_id
    inner join sweeps as described_sweep
        on described.sweep_id = described_sweep.sweep_id
    inner join sweeps as base_sweep on base.sweep_id = base_sweep.sweep_id
    -- the two changes start from the same axis value
    where
        described_sweep.first_axis_value = base_sweep.first_axis_value
        and described.point_index > 1

),

comparisons_labelled as (

    select
        int_published_result_labels.*,
        'sweep_points' as target_mart,
        comparisons.matched_key,
        comparisons.compared_to,
        {{ labels_not_in(published_labels()) }} as uncarried_labels,
        comparisons.metric,
        comparisons.measured_value

    from (
        select * from points_paired_in_sweep
        union all
        select * from deltas_differenced
    ) as comparisons
    inner join int_published_result_labels
        on
            comparisons.result_id
            = int_published_result_labels.labelled_result_id

)

select * from comparisons_labelled
