{#- The values of config_deltas a published figure can be compared with, in
    both directions: one row per delta (and its reverse) x metric x base
    value, with the labels of the result the delta describes. -#}
{%- set metrics = published_metrics() -%}
{#- every delta metric of config_deltas (published name: column), whether
    or not published_metrics() lists it yet -#}
{%- set columns = {
    'iops_delta_pct': 'iops',
    'latency_delta_pct': 'avg_latency_ms',
    'p95_latency_delta_pct': 'p95_latency_ms',
    'p99_latency_delta_pct': 'p99_latency_ms',
    'throughput_delta_pct': 'throughput_mb_s',
    'cpu_delta_pct': 'cpu_util_pct',
    'cpu_load_delta_pct': 'cpu_load_avg',
} -%}
{%- set delta_metrics = (columns.keys() | list) + ['cpu_load_delta_pp'] -%}
{%- for metric in metrics['config_deltas'] if metric not in delta_metrics -%}
    {{ exceptions.raise_compiler_error(
        "chk_published_measured_config_deltas: no column for metric '"
        ~ metric ~ "'"
    ) }}
{%- endfor -%}

with

{{ import_ctes(['config_deltas', 'int_published_result_labels']) }},

config_deltas_both_directions as (

    -- config_deltas keeps each pair once (off -> on, smaller -> larger,
    -- alphabetical); a figure's `compared_to` names its own base, which
    -- can be the other side (JBOF vs local NVMe): the reverse delta is
    -- computed from the same pair
    select
        config_delta_id as matched_key,
        to_result_id as labelled_result_id,
        from_value as compared_to,
        list_transform(differences, d -> struct_pack(
            label := d.label, base_value := d.from_value
        )) as bases,
        {%- for metric, column in columns.items() %}
            {{ pct_change('to_' ~ column, 'from_' ~ column) }} as {{ metric }},
        {%- endfor %}
        -- load average points (a fraction of the CPUs), x 100
        100.0 * (to_cpu_load_avg - from_cpu_load_avg) as cpu_load_delta_pp

    from config_deltas

    union all

    select
        concat(config_delta_id, '-reversed') as matched_key,
        from_result_id as labelled_result_id,
        to_value as compared_to,
        list_transform(differences, d -> struct_pack(
            label := d.label, base_value := d.to_value
        )) as bases,
        {%- for metric, column in columns.items() %}
            {{ pct_change('from_' ~ column, 'to_' ~ column) }} as {{ metric }},
        {%- endfor %}
        -- load average points (a fraction of the CPUs), x 100
        100.0 * (from_cpu_load_avg - to_cpu_load_avg) as cpu_load_delta_pp

    from config_deltas

),

config_deltas_by_base as (

    -- a figure may name the base by any label that differs: the
    -- dimension's value (a profile's name) or one label of it (`RAID-1`
    -- for ftm within a profile change, `30` for the VM count behind VMs
    -- per host); one row per distinct base value
    select distinct
        * exclude (bases, compared_to),
        unnest(
            list_distinct(
                list_prepend(
                    compared_to,
                    list_transform(
                        list_filter(bases, b -> b.base_value is not null),
                        b -> b.base_value
                    )
                )
            )
        ) as compared_to

    from config_deltas_both_directions

),

config_deltas_labelled as (

    -- a delta carries the labels of the result it describes
    select
        int_published_result_labels.*,
        'config_deltas' as target_mart,
        config_deltas_by_base.matched_key,
        config_deltas_by_base.compared_to,
    {%- for metric in delta_metrics %}
        config_deltas_by_base.{{ metric }}{{ "," if not loop.last }}
    {%- endfor %}

    from config_deltas_by_base
    inner join int_published_result_labels
        on
            config_deltas_by_base.labelled_result_id
            = int_published_result_labels.labelled_result_id

),

config_deltas_unpivoted as (

    {{ unpivot_metrics('config_deltas_labelled', delta_metrics) }}

)

select * from config_deltas_unpivoted
