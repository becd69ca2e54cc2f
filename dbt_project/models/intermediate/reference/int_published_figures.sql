{#- One row per published figure (seed published_results) with the mart
    that holds its metric (NULL: no mart computes it), its tolerance (half
    a unit of the last digit printed) and, for a number printed scaled
    down (K, M, GB/s), its truncation unit (one unit of the last digit:
    "345K" holds for 345,000 <= m < 346,000 as well). -#}
with

{{ import_ctes(['published_results']) }},

figures_toleranced as (

    select
        published_results.*,
        case
            {%- for mart, metrics in published_metrics().items() %}
                when
                    published_results.metric in (
                        {%- for metric in metrics %}
                            '{{ metric }}'{{ "," if not loop.last }}
                        {%- endfor %}
                    )
                    then '{{ mart }}'
            {%- endfor %}
        end as target_mart,
        {{ half_unit_of_last_printed_digit(
            'published_results.value', 'published_results.value_as_printed'
        ) }} as tolerance,
        {{ truncation_unit(
            'published_results.value', 'published_results.value_as_printed'
        ) }} as truncation_unit

    from published_results

)

select * from figures_toleranced
