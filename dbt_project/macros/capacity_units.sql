{% macro printed_capacity_units() -%}
    {#- What a published capacity metric's printed "TB" really is: the one
        home of the rule of seeds/README.md (Units). vSphere's capacity
        view, which the Micron RA's Figure 16 screenshots, prints TiB
        (2^40 bytes) and labels it "TB"; the Samsung text names no binary
        unit, so its primary/redundancy "TB" is decimal (10^12 bytes). The
        comparisons divide the marts' bytes by `bytes`; published_vs_measured
        states the unit and prints the values in TB and TiB from it. -#}
    {{ return({
        'capacity_used_before_tb': {
            'unit': 'TiB', 'bytes': 1099511627776,
            'meaning': 'TB as printed by vSphere = TiB (2^40 bytes)',
        },
        'capacity_used_after_tb': {
            'unit': 'TiB', 'bytes': 1099511627776,
            'meaning': 'TB as printed by vSphere = TiB (2^40 bytes)',
        },
        'capacity_primary_tb': {
            'unit': 'TB', 'bytes': 1000000000000,
            'meaning': 'TB = 10^12 bytes (no binary unit named)',
        },
        'capacity_redundancy_tb': {
            'unit': 'TB', 'bytes': 1000000000000,
            'meaning': 'TB = 10^12 bytes (no binary unit named)',
        },
    }) }}
{%- endmacro %}

{% macro printed_capacity_unit(metric, field) -%}
    {#- `field` ('unit', 'bytes' or 'meaning') of printed_capacity_units for
        the metric in column `metric`; NULL for a metric that is no
        capacity. -#}
    {%- set units = printed_capacity_units() -%}
    case {{ metric }}
    {%- for name, unit in units.items() %}
        {%- if field == 'bytes' %}
        when '{{ name }}' then {{ unit[field] }}
        {%- else %}
        when '{{ name }}' then '{{ unit[field] }}'
        {%- endif %}
    {%- endfor %}
    end
{%- endmacro %}
