{#- One row per workload result x direction (`read`, `write`, ... and `all`)
    x percentile, from the best source there is, labelled in
    `latency_source` (the same order as fct_workload_results' p95):
    1. `exact_merged_histogram`: every output of the scope kept json+ bins,
       the percentile is read off the merged histogram (bin resolution);
    2. `exact_single_output`: the scope is one output, fio's own figure;
    3. `upper_bound_max_over_outputs`: the largest of the outputs' own
       percentiles, an upper bound of the mixture's. Never averaged.
    Percentiles are those fio printed for the outputs. -#}
with

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}
    where total_ios > 0

),

stg_fio__latency_percentiles as (

    select * from {{ ref('stg_fio__latency_percentiles') }}
    where latency_kind in ('lat', 'clat')

),

fct_result_latency_histogram as (

    select * from {{ ref('fct_result_latency_histogram') }}
    where is_complete

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
        coalesce(direction, 'all') as direction,
        count(*) as output_count

    from outputs_with_latency_kind
    group by grouping sets ((result_id, direction), (result_id))

),

percentiles_of_outputs as (

    select
        outputs_with_latency_kind.result_id,
        coalesce(outputs_with_latency_kind.direction, 'all') as direction,
        stg_fio__latency_percentiles.percentile,
        max(stg_fio__latency_percentiles.latency_ms) as latency_ms,
        count(*) as outputs_reporting

    from outputs_with_latency_kind
    inner join stg_fio__latency_percentiles
        on
            outputs_with_latency_kind.fio_job_id
            = stg_fio__latency_percentiles.fio_job_id
            and outputs_with_latency_kind.direction
            = stg_fio__latency_percentiles.direction
            and outputs_with_latency_kind.latency_kind
            = stg_fio__latency_percentiles.latency_kind
    group by grouping sets (
        (
            outputs_with_latency_kind.result_id,
            outputs_with_latency_kind.direction,
            stg_fio__latency_percentiles.percentile
        ),
        (
            outputs_with_latency_kind.result_id,
            stg_fio__latency_percentiles.percentile
        )
    )

),

percentiles_from_histogram as (

    -- the smallest bin at or below which p % of the merged I/O completed;
    -- joined per result and direction only (bins x the printed list)
    select
        percentiles_of_outputs.result_id,
        percentiles_of_outputs.direction,
        percentiles_of_outputs.percentile,
        min(fct_result_latency_histogram.bin_ms) as latency_ms

    from percentiles_of_outputs
    inner join fct_result_latency_histogram
        on
            percentiles_of_outputs.result_id
            = fct_result_latency_histogram.result_id
            and percentiles_of_outputs.direction
            = fct_result_latency_histogram.direction
            and fct_result_latency_histogram.ios_at_or_below
            >= percentiles_of_outputs.percentile / 100.0
            * fct_result_latency_histogram.ios_total
    group by all

),

percentiles_chosen as (

    select
        -- identifiers
        md5(
            concat_ws(
                '|', percentiles_of_outputs.result_id,
                percentiles_of_outputs.direction,
                percentiles_of_outputs.percentile
            )
        ) as result_percentile_id,
        percentiles_of_outputs.result_id,

        -- dimensions
        percentiles_of_outputs.direction,
        percentiles_of_outputs.percentile,

        -- facts
        coalesce(
            percentiles_from_histogram.latency_ms,
            percentiles_of_outputs.latency_ms
        ) as latency_ms,
        outputs_counted.output_count,

        -- metadata
        case
            when
                percentiles_from_histogram.latency_ms is not null
                then 'exact_merged_histogram'
            when outputs_counted.output_count = 1 then 'exact_single_output'
            else 'upper_bound_max_over_outputs'
        end as latency_source

    from percentiles_of_outputs
    inner join outputs_counted
        on
            percentiles_of_outputs.result_id = outputs_counted.result_id
            and percentiles_of_outputs.direction = outputs_counted.direction
    left join percentiles_from_histogram
        on
            percentiles_of_outputs.result_id
            = percentiles_from_histogram.result_id
            and percentiles_of_outputs.direction
            = percentiles_from_histogram.direction
            and percentiles_of_outputs.percentile
            = percentiles_from_histogram.percentile
    -- a percentile some outputs did not print is not the scope's
    where
        percentiles_of_outputs.outputs_reporting
        = outputs_counted.output_count

)

select * from percentiles_chosen
