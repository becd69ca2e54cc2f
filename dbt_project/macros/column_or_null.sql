{#- `column` of `relation`, or a NULL of `sql_type` where the relation lacks it:
    a raw column added after warehouses were made (ingest/raw_schema.py
    SOURCE_FILES_ADDED) is missing until a load brings the warehouse up to
    date, and the files loaded before hold NULL there anyway. -#}
{% macro column_or_null(relation, column, sql_type='varchar') -%}
    {%- set names = [] -%}
    {%- if execute -%}
        {%- for found in adapter.get_columns_in_relation(relation) -%}
            {%- do names.append(found.name) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ column if column in names else 'cast(null as ' ~ sql_type ~ ')' }}
{%- endmacro %}
