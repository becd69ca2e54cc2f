{#- The values of dedupe_ratios a published figure can be compared with: one
    row per capacity observation x metric, with the policy and run labels
    of its folder (int_published_capacity_labels). -#}
{%- set metrics = published_metrics() -%}
{%- set units = printed_capacity_units() -%}

with

{{ import_ctes(['dedupe_ratios', 'int_published_capacity_labels']) }},

dedupe_ratios_labelled as (

    -- a capacity observation carries the policy labels of the mart and the
    -- run labels of its folder (density cache vs capacity test)
    select
        {%- for label in capacity_labels() if label not in ['ftm', 'ftt'] %}
            int_published_capacity_labels.{{ label }},
        {%- endfor %}
        'dedupe_ratios' as target_mart,
        cast(dedupe_ratios.capacity_observation_id as varchar) as matched_key,
        dedupe_ratios.testbed,
        dedupe_ratios.ftm,
        dedupe_ratios.ftt,
        {{ labels_not_in(capacity_labels()) }} as uncarried_labels,
        dedupe_ratios.dedupe_compression_ratio,
        -- compared in the printed unit, what the document's "TB" really is
        -- (macro printed_capacity_units: vSphere's capacity view, TiB)
        dedupe_ratios.logical_used_bytes
        / {{ units['capacity_used_before_tb']['bytes'] }}
            as capacity_used_before_tb,
        dedupe_ratios.physical_used_bytes
        / {{ units['capacity_used_after_tb']['bytes'] }}
            as capacity_used_after_tb,
        dedupe_ratios.usable_to_raw_ratio

    from dedupe_ratios
    left join int_published_capacity_labels
        on
            dedupe_ratios.capacity_observation_id
            = int_published_capacity_labels.capacity_observation_id

),

dedupe_ratios_unpivoted as (

    {{ unpivot_metrics('dedupe_ratios_labelled', metrics['dedupe_ratios']) }}

)

select * from dedupe_ratios_unpivoted
