{% macro ns_to_ms(column_name) -%}
    ({{ column_name }} / 1e6)
{%- endmacro %}

{% macro us_to_ms(column_name) -%}
    ({{ column_name }} / 1e3)
{%- endmacro %}

{% macro bytes_to_mb(column_name) -%}
    ({{ column_name }} / 1e6)
{%- endmacro %}

{% macro mib_to_mb(column_name) -%}
    ({{ column_name }} * 1048576 / 1e6)
{%- endmacro %}
