{% macro percentile_from_histogram(histogram, percentile) -%}
    {#- The smallest bin at or below which `percentile` % of the merged I/O
        completed (an aggregate over the rows of one scope of
        int_result_latency_histogram, aliased `histogram`). -#}
    min({{ histogram }}.bin_ms) filter (
        where {{ histogram }}.ios_at_or_below
        >= {{ percentile }} / 100.0 * {{ histogram }}.ios_total
    )
{%- endmacro %}

{% macro latency_percentile_source(
    from_histogram, printed_by_every_output, output_count
) -%}
    {#- Where a scope's percentile comes from, best first: the merged
        histogram of every output; fio's own figure when the scope is one
        output; else the largest of the outputs' figures, an upper bound
        of the mixture's (percentiles are never averaged). -#}
    case
        when {{ from_histogram }} then 'exact_merged_histogram'
        when {{ printed_by_every_output }} and {{ output_count }} = 1
            then 'exact_single_output'
        when {{ printed_by_every_output }}
            then 'upper_bound_max_over_outputs'
        else 'not_reported'
    end
{%- endmacro %}


{#- Which span a mean over several rows measures: their one latency kind
    (`total`, `completion`, `submission`), `mixed` when they differ (an
    output with fio's total latency beside one with only its completion
    latency), NULL when no row has one. -#}
{% macro latency_kind_of_mean(kind) -%}
    case
        when count(distinct {{ kind }}) > 1 then 'mixed'
        else any_value({{ kind }})
    end
{%- endmacro %}
