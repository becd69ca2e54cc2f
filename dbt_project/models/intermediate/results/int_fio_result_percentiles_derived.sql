{#- The result's p95/p99 from the best source there is, labelled by source:
    1. `exact_merged_histogram`: every output kept its json+ histogram, so
       the bins are summed and the percentile read from the merged
       distribution (exact to fio's bin resolution);
    2. `exact_single_output`: the result is one output (job x direction), so
       fio's own percentile is the result's;
    3. `upper_bound_max_over_outputs`: the largest of the outputs' own
       percentiles, an upper bound of the mixture's percentile. Percentiles
       are never averaged. -#}
{%- set percentiles = [95, 99] -%}

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

    -- total latency (lat) when fio reported its percentiles, else
    -- completion latency (clat, fio's default)
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
    inner join stg_fio__latency_percentiles
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
        count(*) as output_count

    from int_fio_directions_assigned_to_results
    group by result_id

),

bins_of_outputs as (

    select
        outputs_with_latency_kind.result_id,
        outputs_with_latency_kind.fio_job_id,
        outputs_with_latency_kind.direction,
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

results_with_bins as (

    select
        bins_of_outputs.result_id,
        count(
            distinct concat_ws(
                '|', bins_of_outputs.fio_job_id, bins_of_outputs.direction
            )
        ) as outputs_with_bins

    from bins_of_outputs
    group by bins_of_outputs.result_id

),

merged_bins as (

    select
        result_id,
        bin_ms,
        sum(io_count) as io_count

    from bins_of_outputs
    group by result_id, bin_ms

),

merged_bins_accumulated as (

    select
        result_id,
        bin_ms,
        sum(io_count) over (
            partition by result_id order by bin_ms
            rows between unbounded preceding and current row
        ) as ios_at_or_below,
        sum(io_count) over (partition by result_id) as ios_total

    from merged_bins

),

percentiles_from_histogram as (

    select
        result_id,
    {%- for p in percentiles %}
        min(bin_ms) filter (
            where ios_at_or_below >= {{ p }} / 100.0 * ios_total
        ) as p{{ p }}_latency_ms{{ "," if not loop.last }}
    {%- endfor %}

    from merged_bins_accumulated
    group by result_id

),

percentiles_of_outputs as (

    select
        outputs_with_latency_kind.result_id,
    {%- for p in percentiles %}
        max(stg_fio__latency_percentiles.latency_ms) filter (
            where stg_fio__latency_percentiles.percentile = {{ p }}
        ) as p{{ p }}_latency_ms,
        count(stg_fio__latency_percentiles.latency_ms) filter (
            where stg_fio__latency_percentiles.percentile = {{ p }}
        ) as p{{ p }}_output_count{{ "," if not loop.last }}
    {%- endfor %}

    from outputs_with_latency_kind
    inner join stg_fio__latency_percentiles
        on
            outputs_with_latency_kind.fio_job_id
            = stg_fio__latency_percentiles.fio_job_id
            and outputs_with_latency_kind.direction
            = stg_fio__latency_percentiles.direction
            and outputs_with_latency_kind.latency_kind
            = stg_fio__latency_percentiles.latency_kind
    group by outputs_with_latency_kind.result_id

),

percentiles_chosen as (

    select
        outputs_counted.result_id,
        outputs_counted.output_count,
    {%- for p in percentiles %}
        case
            when
                results_with_bins.outputs_with_bins
                = outputs_counted.output_count
                then percentiles_from_histogram.p{{ p }}_latency_ms
            when
                percentiles_of_outputs.p{{ p }}_output_count
                = outputs_counted.output_count
                then percentiles_of_outputs.p{{ p }}_latency_ms
        end as p{{ p }}_latency_ms,
        case
            when
                results_with_bins.outputs_with_bins
                = outputs_counted.output_count
                then 'exact_merged_histogram'
            when
                percentiles_of_outputs.p{{ p }}_output_count
                = outputs_counted.output_count
                and outputs_counted.output_count = 1
                then 'exact_single_output'
            when
                percentiles_of_outputs.p{{ p }}_output_count
                = outputs_counted.output_count
                then 'upper_bound_max_over_outputs'
            else 'not_reported'
        end as p{{ p }}_latency_source{{ "," if not loop.last }}
    {%- endfor %}

    from outputs_counted
    left join results_with_bins
        on outputs_counted.result_id = results_with_bins.result_id
    left join percentiles_from_histogram
        on outputs_counted.result_id = percentiles_from_histogram.result_id
    left join percentiles_of_outputs
        on outputs_counted.result_id = percentiles_of_outputs.result_id

)

select * from percentiles_chosen
