{#- Every row where the column is not NULL satisfies `expression` (SQL over
    the model's columns): e.g. a q-value lies between its p-value and 1. -#}
{% test dbt_expression_holds(model, column_name, expression) %}

select *
from {{ model }}
where {{ column_name }} is not null and not ({{ expression }})

{% endtest %}
