{#- The result's p95/p99 (over all its directions) from the best source
    there is, labelled by source (latency_percentile_source):
    1. `exact_merged_histogram`: every output kept its json+ histogram, so
       the percentile is read from the merged distribution (exact to fio's
       bin resolution), printed by the outputs or not;
    2. `exact_single_output`: the result is one output (job x direction), so
       fio's own percentile is the result's;
    3. `upper_bound_max_over_outputs`: the largest of the outputs' own
       percentiles, an upper bound of the mixture's percentile. Percentiles
       are never averaged. -#}
{%- set percentiles = [95, 99] -%}

with

int_fio_outputs_by_latency_scope as (

    select * from {{ ref('int_fio_outputs_by_latency_scope') }}
    where scope_direction = 'all'

),

int_result_latency_histogram as (

    select * from {{ ref('int_result_latency_histogram') }}
    where direction = 'all' and is_complete

),

int_result_latency_percentiles_printed as (

    select * from {{ ref('int_result_latency_percentiles_printed') }}
    where
        direction = 'all'
        and percentile in ({{ percentiles | join(', ') }})

),

outputs_counted as (

    select distinct
        result_id,
        output_count

    from int_fio_outputs_by_latency_scope

),

percentiles_from_histogram as (

    select
        int_result_latency_histogram.result_id,
    {%- for p in percentiles %}
        {{ percentile_from_histogram('int_result_latency_histogram', p) }}
            as p{{ p }}_latency_ms{{ "," if not loop.last }}
    {%- endfor %}

    from int_result_latency_histogram
    group by int_result_latency_histogram.result_id

),

percentiles_printed as (

    select
        result_id,
    {%- for p in percentiles %}
        max(max_latency_ms) filter (where percentile = {{ p }})
            as p{{ p }}_latency_ms,
        coalesce(
            max(outputs_reporting) filter (where percentile = {{ p }}), 0
        ) as p{{ p }}_output_count{{ "," if not loop.last }}
    {%- endfor %}

    from int_result_latency_percentiles_printed
    group by result_id

),

percentiles_chosen as (

    select
        outputs_counted.result_id,
        outputs_counted.output_count,
    {%- for p in percentiles %}
        {%- set from_histogram =
            'percentiles_from_histogram.result_id is not null' %}
        {%- set printed_by_every_output =
            'percentiles_printed.p' ~ p
            ~ '_output_count = outputs_counted.output_count' %}
        case
            when {{ from_histogram }}
                then percentiles_from_histogram.p{{ p }}_latency_ms
            when {{ printed_by_every_output }}
                then percentiles_printed.p{{ p }}_latency_ms
        end as p{{ p }}_latency_ms,
        {{ latency_percentile_source(
            from_histogram, printed_by_every_output,
            'outputs_counted.output_count'
        ) }} as p{{ p }}_latency_source{{ "," if not loop.last }}
    {%- endfor %}

    from outputs_counted
    left join percentiles_from_histogram
        on outputs_counted.result_id = percentiles_from_histogram.result_id
    left join percentiles_printed
        on outputs_counted.result_id = percentiles_printed.result_id

)

select * from percentiles_chosen
