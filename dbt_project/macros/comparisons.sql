{#- The rules of a comparison (docs/ANALYSES.md): which run
    labels are comparison dimensions, which labels count as one dimension,
    and the statistics of a delta's interval. Read by the models in
    models/intermediate/comparisons/ and the comparison marts. -#}

{% macro comparison_bookkeeping_labels() -%}
    {#- Labels that say where a result comes from or how it was loaded, not
        what was measured: never a comparison dimension. `testbed` is the
        partition itself (comparisons are within one testbed);
        `data_origin`, `load_generator_substituted` and free-text notes
        describe the provenance of a whole study; `result_per` says how
        outputs formed results; `profile_order` is the order profiles are
        compared in, not a property of a result; `captured_at` is a
        timestamp. Counting them would make two runs of one configuration
        loaded from two places "differ". -#}
    {{ return([
        'testbed', 'data_origin', 'load_generator_substituted', 'result_per',
        'profile_order', 'captured_at', 'note', 'notes', 'comment',
        'description',
    ]) }}
{%- endmacro %}

{% macro comparison_workload_override_labels() -%}
    {#- run.yaml `workload` overrides: already part of the effective
        workload (read_pct, random_pct, block_size_bytes, outstanding_io of
        fct_workload_results), counted there and not twice. -#}
    {{ return([
        'workload.read_pct', 'workload.random_pct', 'workload.block_size',
        'workload.outstanding_io',
    ]) }}
{%- endmacro %}

{% macro comparison_effective_workload() -%}
    {#- The result's effective workload columns (fct_workload_results), each
        one comparison label. A free-form run label of the same name is
        kept as `labels.<name>` so that the two never merge. -#}
    {{ return([
        'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io',
        'vm_count',
    ]) }}
{%- endmacro %}

{% macro comparison_workload_dimensions() -%}
    {#- Dimensions that make "the workload" a delta is measured on: a
        config delta pairs results of one workload, so it never varies one
        of these (the sweeps mart does). -#}
    {{ return([
        'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io',
        'outstanding_io_per_vm',
    ]) }}
{%- endmacro %}

{% macro comparison_synonyms() -%}
    {#- Labels that name the same thing count as one dimension: the working
        set said as cache/capacity, in GB or in percent of capacity. -#}
    {{ return({
        'working_set': 'working_set',
        'working_set_gb': 'working_set',
        'working_set_pct': 'working_set',
    }) }}
{%- endmacro %}

{% macro comparison_policy_labels() -%}
    {#- The labels a storage-policy profile sets: with a `profile` they are
        part of dimension `profile` (documents compare profiles, a named
        bundle); without one each is its own dimension. -#}
    {{ return([
        'ftm', 'ftt', 'checksum', 'dedupe', 'compression', 'stripe_width',
        'osr_pct',
    ]) }}
{%- endmacro %}

{% macro run_labels_flattened(relation, columns) -%}
    {#- One row per row of `relation` x run label of its `labels_json`:
        the `columns` asked for, then `label`, `json_type` and `value_raw`.
        Nested maps become dotted names (`workload.threads`), lists stay one
        value (their JSON text), a null value is no label, and a free-form
        label named like an effective workload column is kept apart from it
        (`labels.<name>`). The one flattening of run labels: a result's
        comparison labels (int_result_comparison_labels) and the labels a
        host capture is matched on (int_result_captures_matched) read it, so
        that both see the same labels under the same names. -#}
    {%- set path -%}
        ltrim(substr(label_tree.path, 2) || '.' || label_tree.key, '.')
    {%- endset %}
    select
    {%- for column in columns %}
        {{ relation }}.{{ column }},
    {%- endfor %}
        case
            when
                {{ path }} in {{ sql_text_list(comparison_effective_workload()) }}
                then 'labels.' || {{ path }}
            else {{ path }}
        end as label,  -- noqa: RF04
        label_tree.type as json_type,
        json_extract_string(label_tree.value, '$') as value_raw

    from {{ relation }},
        json_tree({{ relation }}.labels_json) as label_tree
    where
        label_tree.type not in ('OBJECT', 'NULL')
        and label_tree.fullkey not like '%[%'
{%- endmacro %}

{% macro canonical_label_text(label, json_type, value_raw) -%}
    {#- One text per label value, so that equal values compare equal: 64
        and 64.0 are one number, booleans true/false; texts of text-typed
        labels (vsan_version "6.0", seeds/label_definitions.csv) are kept as
        written. -#}
    {%- set text_labels = [] -%}
    {%- for key, definition in label_definitions().items()
        if definition.type == 'text' -%}
        {%- do text_labels.append(key) -%}
    {%- endfor -%}
    case
        when {{ json_type }} = 'BOOLEAN' then lower({{ value_raw }})
        when
            {{ json_type }} in ('UBIGINT', 'BIGINT', 'DOUBLE')
            or (
                {{ json_type }} = 'VARCHAR'
                and {{ label }} not in {{ sql_text_list(text_labels) }}
                and try_cast({{ value_raw }} as double) is not null
            )
            then
                {{ canonical_number_text('try_cast(' ~ value_raw ~ ' as double)') }}
        when lower({{ value_raw }}) in ('true', 'false') then lower({{ value_raw }})
        else {{ value_raw }}
    end
{%- endmacro %}

{% macro canonical_number_text(number) -%}
    {#- A number as text without a trailing .0 (64 and 64.0 are one value),
        other decimals as DuckDB prints a double (shortest round trip). -#}
    case
        when
            {{ number }} = trunc({{ number }})
            and abs({{ number }}) < 1e15
            then cast(cast({{ number }} as bigint) as varchar)
        else cast({{ number }} as varchar)
    end
{%- endmacro %}

{% macro difference_interval(metric, name) -%}
    {#- The difference to - from of a metric of two configurations and its
        95 % interval, Welch's: the standard errors combine as
        sqrt(se1^2 + se2^2) and the degrees of freedom by
        Welch-Satterthwaite, se^4 / (se1^4 / df1 + se2^4 / df2), floored
        (Welch 1947; the t quantile of the floor is the larger one, so the
        interval is never narrower). NULL without a standard error on
        either side, or when both are 0 (identical repeats say nothing of
        the spread). Reads from_/to_<metric>, _se and _df; writes <name>,
        its _ci95_low and _ci95_high, and the difference's _se and _df (for
        its p-value: config_delta_tests). -#}
    {%- set se = 'sqrt(power(from_' ~ metric ~ '_se, 2) + power(to_'
        ~ metric ~ '_se, 2))' -%}
    {%- set df -%}
        cast(floor(
            power({{ se }}, 4)
            / nullif(
                power(from_{{ metric }}_se, 4) / from_{{ metric }}_df
                + power(to_{{ metric }}_se, 4) / to_{{ metric }}_df,
                0
            )
        ) as integer)
    {%- endset -%}
    to_{{ metric }} - from_{{ metric }} as {{ name }},
    to_{{ metric }} - from_{{ metric }}
    - {{ student_t_975(df) }} * {{ se }} as {{ name }}_ci95_low,
    to_{{ metric }} - from_{{ metric }}
    + {{ student_t_975(df) }} * {{ se }} as {{ name }}_ci95_high,
    {{ se }} as {{ name }}_se,
    {{ df }} as {{ name }}_df
{%- endmacro %}

{% macro headline_dimension_value(relation, side) -%}
    {#- The <side> ('from' or 'to') value a pair is headlined with: the one
        label that differs; among several, the one named by the pair's
        dimension; else the dimension's own <side>_dimension_value. One
        rule for both sides, so "from" and "to" never disagree on which
        label they show. -#}
    case
        when len({{ relation }}.dimension_differences) = 1
            then {{ relation }}.dimension_differences[1].{{ side }}_value
        when
            list_contains(
                list_transform(
                    {{ relation }}.dimension_differences, d -> d.label
                ),
                {{ relation }}.dimension
            )
            then
                list_filter(
                    {{ relation }}.dimension_differences,
                    d -> d.label = {{ relation }}.dimension
                )[1].{{ side }}_value
        else {{ relation }}.{{ side }}_dimension_value
    end
{%- endmacro %}

{% macro run_configurations(varying_labels) -%}
    {#- One row per result with its `run_configuration`: the labels that
        vary within its testbed (rows of result_varying_labels), printed
        `key=value, ...` in key order. The dashboard's selectors group runs
        by this text, so every mart prints it by this one rule. -#}
    select
        result_id,
        string_agg(
            label_key || '=' || label_value, ', ' order by label_key
        ) as run_configuration
    from {{ varying_labels }}
    group by result_id
{%- endmacro %}
