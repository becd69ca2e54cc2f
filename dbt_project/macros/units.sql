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

{% macro size_to_bytes(column_name) -%}
    {#- A run.yaml size label (`4k`, `64K`, `1m`, `512`) in bytes; k = 1024
        as fio reads it. NULL for anything else. -#}
    case
        when
            regexp_matches(lower(trim({{ column_name }})), '^[0-9]+(\.[0-9]+)?[kmg]?b?$')
            then cast(
                cast(
                    regexp_extract(
                        lower(trim({{ column_name }})), '^([0-9]+(\.[0-9]+)?)', 1
                    ) as double
                )
                * case regexp_extract(lower(trim({{ column_name }})), '([kmg])', 1)
                    when 'k' then 1024
                    when 'm' then 1048576
                    when 'g' then 1073741824
                    else 1
                end
                as bigint
            )
    end
{%- endmacro %}
