{% macro label_value(key, labels_json='labels_json') -%}
    {#- One run label out of `labels_json`, typed and checked by its one
        definition (seeds/label_definitions.csv, via the generated
        label_definitions()). The loader refuses a value outside its
        definition; this is the defence for rows loaded before a rule
        existed: a value out of type or range reads NULL, it never fails
        the build. Sizes are stored in bytes by the loader, so no size text
        is parsed here. -#}
    {%- set definitions = label_definitions() -%}
    {%- if key not in definitions -%}
        {{ exceptions.raise_compiler_error(
            "label_value: no definition for label '" ~ key
            ~ "' in seeds/label_definitions.csv"
        ) }}
    {%- endif -%}
    {%- set definition = definitions[key] -%}
    {%- set text = "json_extract_string("
        ~ labels_json ~ ", '$." ~ key ~ "')" -%}
    {%- if definition.type in ('int', 'size') -%}
        {%- set number = "try_cast(" ~ text ~ " as bigint)" -%}
        case
            when {{ number }} between {{ definition.min }} and {{ definition.max }}
                then cast({{ number }} as {{ 'bigint' if definition.type == 'size' else 'integer' }})
        end
    {%- elif definition.type == 'bool' -%}
        try_cast({{ text }} as boolean)
    {%- elif definition.type == 'choice' -%}
        case
            when {{ text }} in ('{{ definition.allowed | join("', '") }}')
                then {{ text }}
        end
    {%- elif definition.type == 'text_list' -%}
        json_extract_string({{ labels_json }}, '$.{{ key }}[*]')
    {%- else -%}
        {{ text }}
    {%- endif -%}
{%- endmacro %}

{% macro free_form_label_number(key, labels_json='labels_json') -%}
    {#- A free-form run label (no definition in label_definitions.csv, such
        as SFD7's `working_set_gb`) read as a number: NULL when absent or
        not numeric, never a failed build. -#}
    try_cast(json_extract_string({{ labels_json }}, '$.{{ key }}') as double)
{%- endmacro %}


{#- The file a result's labels are read from: its earliest-loaded output,
    then the first by path. Every output of a result shares its folder, hence
    its labels; the rule picks the same file in a warehouse file (ids in load
    order) and in a lake (random ids), where min(source_file_id) would pick
    any of them. -#}
{% macro earliest_loaded_file(
    file_id='source_file_id', loaded_at='loaded_at', path='source_path'
) -%}
    arg_min({{ file_id }}, ({{ loaded_at }}, {{ path }}))
{%- endmacro %}
