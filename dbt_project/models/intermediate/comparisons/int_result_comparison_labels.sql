{#- One row per workload result (of a testbed) x label: every run label,
    typed or free-form, nested maps flattened to dotted names
    (`workload.threads`), the result's effective workload, and the derived
    per-VM and per-host values; which comparison dimension each counts in
    (macros/comparisons.sql, docs/ANALYSES.md). -#}
{%- set bookkeeping = comparison_bookkeeping_labels() -%}
{%- set overrides = comparison_workload_override_labels() -%}
{%- set effective = comparison_effective_workload() -%}
{%- set synonyms = comparison_synonyms() -%}
{%- set policy = comparison_policy_labels() -%}
{#- every key of labels_json, flattened by the one rule for run labels -#}
{%- set keys = ['result_id', 'testbed_id', 'profile'] -%}

with

int_workload_results_completed as (

    -- comparisons are within one testbed: a result without one has none
    select * from {{ ref('int_workload_results_completed') }}
    where testbed is not null

),

run_labels_flattened as (

    {{ run_labels_flattened('int_workload_results_completed', keys) }}

),

run_labels_named as (

    select
        result_id,
        testbed_id,
        profile,
        label,
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
        {{ canonical_label_text('label', 'json_type', 'value_raw') }}
            as value_text,
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
