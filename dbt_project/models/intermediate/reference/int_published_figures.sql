{#- One row per published figure (seed published_results, and a user's own
    figures files: stg_published_figures__figures, whose `figures_file`
    names the file; NULL for the seed's) with the mart
    that holds its metric (NULL: no mart computes it), its tolerance (half
    a unit of the last digit printed) and, for a number printed scaled
    down (K, M, GB/s), its truncation unit (one unit of the last digit:
    "345K" holds for 345,000 <= m < 346,000 as well). -#}
with

{{ import_ctes(['published_results', 'stg_published_figures__figures']) }},

figures as (

    select
        published_results.*,
        cast(null as varchar) as figures_file
    from published_results

    union all by name

    select * from stg_published_figures__figures

),

figures_toleranced as (

    select
        figures.*,
        case
            {%- for mart, metrics in published_metrics().items() %}
                when
                    figures.metric in (
                        {%- for metric in metrics %}
                            '{{ metric }}'{{ "," if not loop.last }}
                        {%- endfor %}
                    )
                    then '{{ mart }}'
            {%- endfor %}
        end as target_mart,
        {{ half_unit_of_last_printed_digit(
            'figures.value', 'figures.value_as_printed'
        ) }} as tolerance,
        {{ truncation_unit(
            'figures.value', 'figures.value_as_printed'
        ) }} as truncation_unit

    from figures

)

select * from figures_toleranced
