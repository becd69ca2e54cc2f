{#- A measure that is a number and not below zero. `>= 0` alone is not
    enough: in DuckDB `'nan'::double >= 0` is true, and Infinity passes any
    lower bound. NULL passes (a missing measure is not an impossible one). -#}
{% test finite_non_negative(model, column_name) %}

    select {{ column_name }}

    from {{ model }}
    where
        {{ column_name }} is not null
        and (not isfinite({{ column_name }}::double) or {{ column_name }} < 0)

{% endtest %}
