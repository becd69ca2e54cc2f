{#- One row per workload result (of a testbed) x label: every run label,
    typed or free-form, nested maps flattened to dotted names
    (`workload.threads`), the result's effective workload, and the derived
    per-VM and per-host values; which comparison dimension each counts in
    (macros/comparisons.sql, docs/ANALYSES.md). -#}
{%- set definitions = label_definitions() -%}
{%- set text_labels = [] -%}
{%- for key, definition in definitions.items()
    if definition.type == 'text' -%}
    {%- do text_labels.append("'" ~ key ~ "'") -%}
{%- endfor -%}
{%- set bookkeeping = comparison_bookkeeping_labels() -%}
{%- set overrides = comparison_workload_override_labels() -%}
{%- set effective = comparison_effective_workload() -%}
{%- set synonyms = comparison_synonyms() -%}
{%- set policy = comparison_policy_labels() -%}

with

int_workload_results_completed as (

    -- comparisons are within one testbed: a result without one has none
    select * from {{ ref('int_workload_results_completed') }}
    where testbed is not null

),

run_labels_flattened as (

    -- every key of labels_json; nested maps become dotted names, lists
    -- stay one value (their JSON text); a null value is no label
    select
        int_workload_results_completed.result_id,
        int_workload_results_completed.testbed_id,
        int_workload_results_completed.profile,
        ltrim(
            substr(label_tree.path, 2) || '.' || label_tree.key, '.'
        ) as label_path,
        label_tree.type as json_type,
        json_extract_string(label_tree.value, '$') as value_raw

    from int_workload_results_completed,
        json_tree(int_workload_results_completed.labels_json) as label_tree
    where
        label_tree.type not in ('OBJECT', 'NULL')
        and label_tree.fullkey not like '%[%'

),

run_labels_named as (

    select
        result_id,
        testbed_id,
        profile,
        -- a free-form label named like an effective workload column is
        -- kept apart from it
        case
            when
                label_path in {{ sql_text_list(effective) }}
                then 'labels.' || label_path
            else label_path
        end as label,  -- noqa: RF04
        'run_label' as label_origin,
        json_type,
        value_raw

    from run_labels_flattened

),

workload_values as (

    -- the effective workload: run.yaml overrides applied to what the tool
    -- output says; outstanding_io is the whole test's
    select
        result_id,
        testbed_id,
        profile,
        cast(nodes as double) as nodes,
    {%- for column in effective %}
        cast({{ column }} as double) as {{ column }}{{ "," if not loop.last }}
    {%- endfor %}

    from int_workload_results_completed

),

workload_labels as (

    {%- for column in effective %}
        select
            result_id,
            testbed_id,
            profile,
            '{{ column }}' as label,  -- noqa: RF04
            'workload' as label_origin,
            'DOUBLE' as json_type,
            cast({{ column }} as varchar) as value_raw
        from workload_values
        where {{ column }} is not null
        union all
    {%- endfor %}

    -- derived: outstanding I/O per VM (when the VM count is known) and VMs
    -- per host (when the host count is): "45 vs 30 VMs at 64 outstanding
    -- I/O per VM" then differs in one dimension, not three
    {%- set derived = [
        ('outstanding_io_per_vm', 'outstanding_io', 'vm_count'),
        ('vms_per_host', 'vm_count', 'nodes'),
    ] %}
    {%- for name, numerator, denominator in derived %}
        select
            result_id,
            testbed_id,
            profile,
            '{{ name }}' as label,  -- noqa: RF04
            'derived' as label_origin,
            'DOUBLE' as json_type,
            cast({{ numerator }} / {{ denominator }} as varchar) as value_raw
        from workload_values
        where {{ numerator }} is not null and {{ denominator }} > 0
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

labels_unioned as (

    select * from run_labels_named
    union all
    select * from workload_labels

),

labels_canonical as (

    -- one text per value: 64 and 64.0 are one number, booleans true/false;
    -- texts of text-typed labels (vsan_version "6.0") are kept as written
    select
        result_id,
        testbed_id,
        profile,
        label,
        label_origin,
        case
            when json_type = 'BOOLEAN' then lower(value_raw)
            when
                json_type in ('UBIGINT', 'BIGINT', 'DOUBLE')
                or (
                    json_type = 'VARCHAR'
                    and label not in ({{ text_labels | join(', ') }})
                    and try_cast(value_raw as double) is not null
                )
                then
                    {{ canonical_number_text('try_cast(value_raw as double)') }}
            when lower(value_raw) in ('true', 'false') then lower(value_raw)
            else value_raw
        end as value_text,
        case
            when json_type in ('UBIGINT', 'BIGINT', 'DOUBLE', 'VARCHAR')
                then try_cast(value_raw as double)
        end as value_number

    from labels_unioned

),

labels_classified as (

    select
        -- identifiers
        result_id,
        testbed_id,

        -- dimensions
        label,
        label_origin,
        value_text,
        value_number,
        case
            when
                label in {{ sql_text_list(bookkeeping + overrides) }}
                then null
            {%- for label, dimension in synonyms.items() %}
                when label = '{{ label }}' then '{{ dimension }}'
            {%- endfor %}
            when
                label in {{ sql_text_list(policy) }}
                and profile is not null
                then 'profile'
            else label
        end as dimension,
        case
            when
                label in {{ sql_text_list(bookkeeping + overrides) }}
                then false
            -- compared per VM, or per host, where the derived value exists
            when label = 'outstanding_io'
                then not bool_or(label = 'outstanding_io_per_vm') over (
                    partition by result_id
                )
            when label = 'vm_count'
                then not bool_or(label = 'vms_per_host') over (
                    partition by result_id
                )
            else true
        end as is_counted

    from labels_canonical

)

select * from labels_classified
