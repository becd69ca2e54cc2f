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

{% macro block_size_text(bytes) -%}
    {#- A block size as the studies print it: 4K, 64K, 1M (bytes when not a
        whole number of KiB). One rule, because result labels and printed
        figures are matched on this text (ra_comparison_points). -#}
    case
        when {{ bytes }} % 1048576 = 0
            then cast({{ bytes }} // 1048576 as varchar) || 'M'
        when {{ bytes }} % 1024 = 0
            then cast({{ bytes }} // 1024 as varchar) || 'K'
        else cast({{ bytes }} as varchar) || 'B'
    end
{%- endmacro %}
