{#- The values of config_deltas a published figure can be compared with, in
    both directions: one row per delta (and its reverse) x metric, with the
    labels of the result the delta describes. -#}
{%- set metrics = published_metrics() -%}

with

config_deltas as (

    select * from {{ ref('config_deltas') }}

),

int_published_result_labels as (

    select * from {{ ref('int_published_result_labels') }}

),

config_deltas_both_directions as (

    -- config_deltas keeps each pair once (off -> on, smaller -> larger,
    -- alphabetical); a figure's `compared_to` names its own base, which
    -- can be the other side (JBOF vs local NVMe): the reverse delta is
    -- computed from the same pair
    select
        config_delta_id as matched_key,
        to_result_id as labelled_result_id,
        from_value as compared_to,
        iops_delta_pct,
        avg_latency_delta_pct as latency_delta_pct,
        p95_latency_delta_pct,
        cpu_delta_pct

    from config_deltas

    union all

    select
        concat(config_delta_id, '-reversed') as matched_key,
        from_result_id as labelled_result_id,
        to_value as compared_to,
        {{ pct_change('from_iops', 'to_iops') }} as iops_delta_pct,
        {{ pct_change('from_avg_latency_ms', 'to_avg_latency_ms') }}
            as latency_delta_pct,
        {{ pct_change('from_p95_latency_ms', 'to_p95_latency_ms') }}
            as p95_latency_delta_pct,
        {{ pct_change('from_cpu_util_pct', 'to_cpu_util_pct') }}
            as cpu_delta_pct

    from config_deltas

),

config_deltas_labelled as (

    -- a delta carries the labels of the result it describes; `compared_to`
    -- names the base's value of the label that differs
    select
        int_published_result_labels.*,
        'config_deltas' as target_mart,
        config_deltas_both_directions.matched_key,
        config_deltas_both_directions.compared_to,
        config_deltas_both_directions.iops_delta_pct,
        config_deltas_both_directions.latency_delta_pct,
        config_deltas_both_directions.p95_latency_delta_pct,
        config_deltas_both_directions.cpu_delta_pct

    from config_deltas_both_directions
    inner join int_published_result_labels
        on
            config_deltas_both_directions.labelled_result_id
            = int_published_result_labels.labelled_result_id

),

config_deltas_unpivoted as (

    {{ unpivot_metrics('config_deltas_labelled', metrics['config_deltas']) }}

)

select * from config_deltas_unpivoted
