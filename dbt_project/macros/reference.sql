{#- The rules marts.published_vs_measured compares published figures by
    (seeds/README.md), shared by its intermediate models. -#}

{% macro published_labels() -%}
    {#- The label columns a published figure may pin (NULL: open). -#}
    {{ return([
        'profile', 'working_set', 'working_set_gb', 'transport',
        'vsan_version', 'stripe_width', 'storage', 'disk_groups', 'nodes',
        'vm_count', 'ftm', 'ftt', 'dedupe', 'compression', 'checksum',
        'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io',
    ]) }}
{%- endmacro %}

{% macro capacity_labels() -%}
    {#- The published labels a capacity observation carries: the policy of
        its mart row and the run labels of its folder
        (int_published_capacity_labels); never a workload. -#}
    {{ return([
        'profile', 'working_set', 'working_set_gb', 'vsan_version',
        'stripe_width', 'storage', 'disk_groups', 'nodes', 'ftm', 'ftt',
        'dedupe', 'compression', 'checksum',
    ]) }}
{%- endmacro %}

{% macro published_metrics() -%}
    {#- Which mart holds a published metric, under the same name there or
        as renamed by chk_published_measured_values. -#}
    {{ return({
        'fct_workload_results': [
            'iops', 'read_iops', 'write_iops', 'avg_latency_ms',
            'read_latency_ms', 'write_latency_ms', 'p95_latency_ms',
            'p99_latency_ms', 'throughput_mb_s', 'cpu_util_pct', 'cpu_load_avg',
        ],
        'per_node_iops': ['iops_per_node'],
        'result_backend_io': ['backend_write_iops'],
        'per_node_iops_vs_targets': ['iops_per_node_vs_target_pct'],
        'profile_latency_deltas': [
            'iops_vs_baseline_pct', 'latency_vs_baseline_pct',
            'iops_vs_previous_pct', 'latency_vs_previous_pct',
        ],
        'config_deltas': [
            'iops_delta_pct', 'latency_delta_pct', 'p95_latency_delta_pct',
            'p99_latency_delta_pct', 'throughput_delta_pct', 'cpu_delta_pct',
            'cpu_load_delta_pct',
        ],
        'dedupe_ratios': [
            'dedupe_compression_ratio', 'capacity_used_before_tb',
            'capacity_used_after_tb', 'usable_to_raw_ratio',
        ],
        'storage_policy_costs': [
            'capacity_multiplier', 'capacity_overhead_pct',
            'replica_capacity_delta_pct',
        ],
        'capacity_primary_vs_redundancy': [
            'capacity_primary_tb', 'capacity_redundancy_tb',
            'vdisk_share_of_used_pct',
        ],
        'transport_cpu_efficiency': ['rdma_efficiency_gain_pct'],
        'sweeps': [
            'optimal_block_size_bytes', 'latency_knee_vm_count',
            'optimal_outstanding_io_per_host',
        ],
        'sweep_points': ['iops_ratio', 'iops_delta_diff_pp'],
    }) }}
{%- endmacro %}

{% macro labels_not_in(carried) -%}
    {#- The published labels a mart's grain does not carry (it aggregates
        over them), as a varchar list: they are not compared. -#}
    {%- set uncarried = [] -%}
    {%- for label in published_labels() if label not in carried -%}
        {%- do uncarried.append("'" ~ label ~ "'") -%}
    {%- endfor -%}
    cast([{{ uncarried | join(', ') }}] as varchar[])
{%- endmacro %}

{#- sqlfluff reads the loop body of an uncalled macro as one literal and
    misjudges its indentation: layout is checked where it is called. -#}
-- noqa: disable=LT02
{% macro unpivot_metrics(relation, metrics) -%}
    {#- One row per row of `relation` x metric: the other columns, `metric`
        and `measured_value` (NULL kept: a matched row without the metric
        counts against the figure). #}
    {% for metric in metrics %}
        select
            * exclude ({{ metrics | join(', ') }}),
            '{{ metric }}' as metric,
            {{ metric }} as measured_value
        from {{ relation }}
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
{%- endmacro %}

-- noqa: enable=LT02

{% macro printed_number(value_as_printed) -%}
    {#- The first number in value_as_printed, thousands commas dropped, as
        text (its decimals count). -#}
    replace(
        regexp_extract({{ value_as_printed }}, '[0-9][0-9,]*(\.[0-9]+)?'),
        ',',
        ''
    )
{%- endmacro %}

{% macro printed_scale(value, value_as_printed) -%}
    {#- The power of ten that makes the printed number `value` (K, M, GB/s ->
        MB/s, a chart axis in hundreds); NULL when no such scale does
        (derived figures, words like "a quarter"). -#}
    {%- set number =
        'try_cast(' ~ printed_number(value_as_printed) ~ ' as double)' -%}
    case
        when {{ number }} > 0
            then
                list_filter(
                    [1.0, 1e3, 1e6, 1e9, 10.0, 100.0, 1e4, 1e5, 1e7, 1e8],
                    scale -> abs(
                        abs({{ value }}) - {{ number }} * scale
                    ) <= 1e-9 * greatest(abs({{ value }}), 1)
                )[1]
    end
{%- endmacro %}

{% macro unit_of_last_printed_digit(value, value_as_printed) -%}
    {#- One unit of the last digit printed, at the printed scale ("345K" ->
        1000, "1.10ms" -> 0.01); a figure whose printed number is not
        `value` at any scale takes the decimals of `value` itself. -#}
    {%- set scale = printed_scale(value, value_as_printed) -%}
    case
        when {{ scale }} is not null
            then
                power(
                    10,
                    -length(
                        regexp_extract(
                            {{ printed_number(value_as_printed) }},
                            '\.([0-9]+)$',
                            1
                        )
                    )
                )
                * {{ scale }}
        else
            power(
                10,
                -length(
                    regexp_extract(
                        cast({{ value }} as varchar), '\.([0-9]*[1-9])0*$', 1
                    )
                )
            )
    end
{%- endmacro %}

{% macro half_unit_of_last_printed_digit(value, value_as_printed) -%}
    {#- Tolerance of a rounded figure: half a unit of the last digit
        printed (unit_of_last_printed_digit). -#}
    0.5 * {{ unit_of_last_printed_digit(value, value_as_printed) }}
{%- endmacro %}

{% macro truncation_unit(value, value_as_printed) -%}
    {#- A printed number scaled down from `value` (K, M, G, GB/s for MB/s:
        fewer digits than the value has) may have been truncated rather
        than rounded ("345K" for 345,707): one unit of its last digit. NULL
        for a number printed with all its digits, which cannot be
        truncated. -#}
    case
        when {{ printed_scale(value, value_as_printed) }} > 1
            then {{ unit_of_last_printed_digit(value, value_as_printed) }}
    end
{%- endmacro %}

{% macro holds_within(
    measured, published, qualifier, tolerance, truncation_unit='null'
) -%}
    {#- Qualifier semantics (seeds/README.md): exact within the tolerance
        (rounded) or, for a scaled number (truncation_unit not NULL), cut
        off at its last printed digit: same sign and 0 <= |m| - |p| < one
        unit; approx allows 10 % of the magnitude; more_than / less_than
        bound the magnitude with the published sign; abs_less_than bounds
        the magnitude only. NULL when nothing was measured. -#}
    case
        when {{ measured }} is null then null
        when {{ qualifier }} = 'exact'
            then
                abs({{ measured }} - {{ published }}) <= {{ tolerance }}
                or coalesce(
                    sign({{ measured }}) * sign({{ published }}) >= 0
                    and abs({{ measured }}) - abs({{ published }}) >= 0
                    and abs({{ measured }}) - abs({{ published }})
                    < {{ truncation_unit }},
                    false
                )
        when {{ qualifier }} = 'approx'
            then
                abs({{ measured }} - {{ published }})
                <= greatest({{ tolerance }}, 0.1 * abs({{ published }}))
        when {{ qualifier }} = 'more_than'
            then
                sign({{ measured }}) * sign({{ published }}) >= 0
                and abs({{ measured }})
                >= abs({{ published }}) - {{ tolerance }}
        when {{ qualifier }} = 'less_than'
            then
                sign({{ measured }}) * sign({{ published }}) >= 0
                and abs({{ measured }})
                <= abs({{ published }}) + {{ tolerance }}
        when {{ qualifier }} = 'abs_less_than'
            then
                abs({{ measured }}) <= abs({{ published }}) + {{ tolerance }}
    end
{%- endmacro %}
