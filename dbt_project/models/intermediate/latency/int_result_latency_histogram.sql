{#- One row per workload result x scope (`read`, `write`, ... and `all`) x
    json+ latency bin: the I/O counts of the scope's outputs' histograms
    summed per bin (each output's bins of its latency kind,
    int_fio_outputs_by_latency_scope). `is_complete` when every output of
    the scope kept its histogram: only then is a percentile read off the
    merged bins the scope's own. -#}
with

{{ import_ctes([
    'int_fio_outputs_by_latency_scope',
    'stg_fio__latency_bins',
]) }},

bins_of_outputs as (

    select
        int_fio_outputs_by_latency_scope.result_id,
        int_fio_outputs_by_latency_scope.scope_direction,
        int_fio_outputs_by_latency_scope.fio_job_id,
        int_fio_outputs_by_latency_scope.direction,
        int_fio_outputs_by_latency_scope.latency_kind,
        int_fio_outputs_by_latency_scope.output_count,
        stg_fio__latency_bins.bin_ms,
        stg_fio__latency_bins.io_count

    from int_fio_outputs_by_latency_scope
    -- the bins of the output's own latency kind (lat or clat, chosen once
    -- in int_fio_outputs_by_latency_scope)
    inner join stg_fio__latency_bins
        on
            int_fio_outputs_by_latency_scope.fio_job_id
            = stg_fio__latency_bins.fio_job_id
            and int_fio_outputs_by_latency_scope.direction
            = stg_fio__latency_bins.direction
            and int_fio_outputs_by_latency_scope.latency_kind
            = stg_fio__latency_bins.latency_kind

),

bins_merged as (

    select
        result_id,
        scope_direction as direction,
        bin_ms,
        sum(io_count) as io_count,
        string_agg(distinct latency_kind, ',' order by latency_kind)
            as latency_kind,
        any_value(output_count) as output_count

    from bins_of_outputs
    group by result_id, scope_direction, bin_ms

),

outputs_with_bins_counted as (

    select
        result_id,
        scope_direction as direction,
        count(distinct concat_ws('|', fio_job_id, direction))
            as outputs_with_bins

    from bins_of_outputs
    group by result_id, scope_direction

),

bins_accumulated as (

    select
        -- identifiers
        bins_merged.result_id,

        -- dimensions
        bins_merged.direction,
        bins_merged.latency_kind,
        bins_merged.bin_ms,

        -- facts
        bins_merged.io_count,
        sum(bins_merged.io_count) over (
            partition by bins_merged.result_id, bins_merged.direction
            order by bins_merged.bin_ms
            rows between unbounded preceding and current row
        ) as ios_at_or_below,
        sum(bins_merged.io_count) over (
            partition by bins_merged.result_id, bins_merged.direction
        ) as ios_total,
        outputs_with_bins_counted.outputs_with_bins,
        bins_merged.output_count,

        -- metadata: a histogram missing some outputs is not the result's
        outputs_with_bins_counted.outputs_with_bins
        = bins_merged.output_count as is_complete

    from bins_merged
    inner join outputs_with_bins_counted
        on
            bins_merged.result_id = outputs_with_bins_counted.result_id
            and bins_merged.direction = outputs_with_bins_counted.direction

)

select * from bins_accumulated
