{#- The values of capacity_primary_vs_redundancy a published figure can be
    compared with: one row per capacity observation with an object-type
    breakdown x metric, with the policy and run labels of its folder
    (int_published_capacity_labels). -#}
{%- set metrics = published_metrics() -%}
{%- set units = printed_capacity_units() -%}
{#- the labels the mart row itself carries; the folder gives the others -#}
{%- set mart_labels = ['profile', 'working_set', 'nodes', 'ftm', 'ftt'] -%}

with

{{ import_ctes([
    'capacity_primary_vs_redundancy',
    'int_published_capacity_labels',
]) }},

capacity_labelled as (

    -- the mart keeps bytes; compared in the printed unit, what the
    -- document's "TB" really is (macro printed_capacity_units: decimal TB
    -- for Samsung Figure 10's "5.28 TB", no binary unit named)
    select
        {%- for label in capacity_labels() if label not in mart_labels %}
            int_published_capacity_labels.{{ label }},
        {%- endfor %}
        'capacity_primary_vs_redundancy' as target_mart,
        cast(
            capacity_primary_vs_redundancy.capacity_observation_id as varchar
        ) as matched_key,
        capacity_primary_vs_redundancy.testbed,
        capacity_primary_vs_redundancy.profile,
        capacity_primary_vs_redundancy.working_set,
        capacity_primary_vs_redundancy.nodes,
        capacity_primary_vs_redundancy.ftm,
        capacity_primary_vs_redundancy.ftt,
        {{ labels_not_in(capacity_labels()) }} as uncarried_labels,
        capacity_primary_vs_redundancy.primary_bytes
        / {{ units['capacity_primary_tb']['bytes'] }} as capacity_primary_tb,
        capacity_primary_vs_redundancy.redundancy_bytes
        / {{ units['capacity_redundancy_tb']['bytes'] }}
            as capacity_redundancy_tb,
        capacity_primary_vs_redundancy.vdisk_share_of_used_pct

    from capacity_primary_vs_redundancy
    left join int_published_capacity_labels
        on
            capacity_primary_vs_redundancy.capacity_observation_id
            = int_published_capacity_labels.capacity_observation_id

),

capacity_unpivoted as (

    {{ unpivot_metrics(
        'capacity_labelled', metrics['capacity_primary_vs_redundancy']
    ) }}

)

select * from capacity_unpivoted
