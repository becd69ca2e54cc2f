{#- The import CTEs every model starts with (jaffle-shop's convention: one
    CTE per upstream model, named as the model, reading it whole), written
    out once: 144 five-line blocks that differed only by the name. An input
    a model filters or comments on stays a CTE of its own below the call. -#}

{% macro import_ctes(models) -%}
    {%- for model in models -%}
        {{ ",\n" if not loop.first }}{{ model }} as (
        {{- "select * from " ~ ref(model) -}}
        )
    {%- endfor -%}
{%- endmacro %}
