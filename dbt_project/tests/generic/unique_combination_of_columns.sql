{#- No dbt_utils (no package download in CI): one row per combination of
    `columns`, NULLs grouped together. -#}
{% test unique_combination_of_columns(model, columns) %}

    select
        {{ columns | join(', ') }},
        count(*) as row_count

    from {{ model }}
    group by all
    having count(*) > 1

{% endtest %}
