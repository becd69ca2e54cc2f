{#- One row per workload result x direction (`read`, `write`, ... and
    `all`) x json+ latency bin: the I/O counts of the result's outputs'
    histograms summed per bin. Latency kind per output as in
    int_fio_result_percentiles_derived: total latency (lat) when fio
    reported its percentiles, else completion latency (clat). -#}
with

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}
    where total_ios > 0

),

stg_fio__latency_percentiles as (

    select * from {{ ref('stg_fio__latency_percentiles') }}
    where latency_kind in ('lat', 'clat')

),

stg_fio__latency_bins as (

    select * from {{ ref('stg_fio__latency_bins') }}
    where latency_kind in ('lat', 'clat')

),

outputs_with_latency_kind as (

    select
        int_fio_directions_assigned_to_results.result_id,
        int_fio_directions_assigned_to_results.fio_job_id,
        int_fio_directions_assigned_to_results.direction,
        case
            when bool_or(stg_fio__latency_percentiles.latency_kind = 'lat')
                then 'lat'
            else 'clat'
        end as latency_kind

    from int_fio_directions_assigned_to_results
    left join stg_fio__latency_percentiles
        on
            int_fio_directions_assigned_to_results.fio_job_id
            = stg_fio__latency_percentiles.fio_job_id
            and int_fio_directions_assigned_to_results.direction
            = stg_fio__latency_percentiles.direction
    group by all

),

outputs_counted as (

    select
        result_id,
        direction,
        count(*) as output_count

    from outputs_with_latency_kind
    group by grouping sets ((result_id, direction), (result_id))

),

bins_of_outputs as (

    select
        outputs_with_latency_kind.result_id,
        outputs_with_latency_kind.fio_job_id,
        outputs_with_latency_kind.direction,
        outputs_with_latency_kind.latency_kind,
        stg_fio__latency_bins.bin_ms,
        stg_fio__latency_bins.io_count

    from outputs_with_latency_kind
    inner join stg_fio__latency_bins
        on
            outputs_with_latency_kind.fio_job_id
            = stg_fio__latency_bins.fio_job_id
            and outputs_with_latency_kind.direction
            = stg_fio__latency_bins.direction
            and outputs_with_latency_kind.latency_kind
            = stg_fio__latency_bins.latency_kind

),

bins_merged as (

    -- grouping sets: per direction, and over all directions (NULL -> all)
    select
        result_id,
        coalesce(direction, 'all') as direction,
        bin_ms,
        sum(io_count) as io_count,
        string_agg(distinct latency_kind, ',' order by latency_kind)
            as latency_kind

    from bins_of_outputs
    group by grouping sets ((result_id, direction, bin_ms), (result_id, bin_ms))

),

outputs_with_bins_counted as (

    select
        result_id,
        coalesce(direction, 'all') as direction,
        count(distinct concat_ws('|', fio_job_id, direction))
            as outputs_with_bins

    from bins_of_outputs
    group by grouping sets ((result_id, direction), (result_id))

),

bins_accumulated as (

    select
        -- identifiers
        md5(
            concat_ws(
                '|', bins_merged.result_id, bins_merged.direction,
                bins_merged.bin_ms
            )
        ) as histogram_bin_id,
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
        outputs_counted.output_count,

        -- metadata: a histogram missing some outputs is not the result's
        outputs_with_bins_counted.outputs_with_bins
        = outputs_counted.output_count as is_complete

    from bins_merged
    inner join outputs_counted
        on
            bins_merged.result_id = outputs_counted.result_id
            and bins_merged.direction
            = coalesce(outputs_counted.direction, 'all')
    inner join outputs_with_bins_counted
        on
            bins_merged.result_id = outputs_with_bins_counted.result_id
            and bins_merged.direction = outputs_with_bins_counted.direction

)

select * from bins_accumulated
