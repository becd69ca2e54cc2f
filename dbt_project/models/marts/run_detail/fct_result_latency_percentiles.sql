{#- One row per workload result x direction (`read`, `write`, ... and `all`)
    x percentile every output of the scope printed, from the best source
    there is (latency_percentile_source, the same order as
    fct_workload_results' p95):
    1. `exact_merged_histogram`: every output of the scope kept json+ bins,
       the percentile is read off the merged histogram (bin resolution);
    2. `exact_single_output`: the scope is one output, fio's own figure;
    3. `upper_bound_max_over_outputs`: the largest of the outputs' own
       percentiles, an upper bound of the mixture's. Never averaged. -#}
with

int_result_latency_percentiles_printed as (

    -- a percentile some outputs did not print is not the scope's
    select * from {{ ref('int_result_latency_percentiles_printed') }}
    where outputs_reporting = output_count

),

int_result_latency_histogram as (

    select * from {{ ref('int_result_latency_histogram') }}
    where is_complete

),

percentiles_from_histogram as (

    -- joined per result and direction only (bins x the printed list)
    select
        int_result_latency_percentiles_printed.result_id,
        int_result_latency_percentiles_printed.direction,
        int_result_latency_percentiles_printed.percentile,
        {{ percentile_from_histogram(
            'int_result_latency_histogram',
            'int_result_latency_percentiles_printed.percentile'
        ) }} as latency_ms

    from int_result_latency_percentiles_printed
    inner join int_result_latency_histogram
        on
            int_result_latency_percentiles_printed.result_id
            = int_result_latency_histogram.result_id
            and int_result_latency_percentiles_printed.direction
            = int_result_latency_histogram.direction
    group by all

),

percentiles_chosen as (

    select
        -- identifiers
        {{ hashed_key([
            'printed.result_id', 'printed.direction', 'printed.percentile'
        ]) }} as result_percentile_id,
        printed.result_id,

        -- dimensions
        printed.direction,
        printed.percentile,

        -- facts
        coalesce(
            percentiles_from_histogram.latency_ms, printed.max_latency_ms
        ) as latency_ms,
        printed.output_count,

        -- metadata
        {{ latency_percentile_source(
            'percentiles_from_histogram.latency_ms is not null',
            'true',
            'printed.output_count'
        ) }} as latency_source

    from int_result_latency_percentiles_printed as printed
    left join percentiles_from_histogram
        on
            printed.result_id = percentiles_from_histogram.result_id
            and printed.direction = percentiles_from_histogram.direction
            and printed.percentile = percentiles_from_histogram.percentile

)

select * from percentiles_chosen
