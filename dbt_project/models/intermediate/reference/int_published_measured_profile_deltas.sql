{#- The values of profile_latency_deltas a published figure can be compared
    with: one row per profile delta x metric, keyed by the mart's grain,
    compared to the baseline or the previous profile. -#}
{%- set metrics = published_metrics() -%}

with

profile_latency_deltas as (

    select * from {{ ref('profile_latency_deltas') }}

),

profile_deltas_labelled as (

    -- the profile mart's grain is testbed x working set x disk groups x
    -- nodes x workload x profile: the other labels are aggregated over
    select
        'profile_latency_deltas' as target_mart,
        concat_ws(
            '|', testbed, working_set, disk_groups, nodes, read_pct,
            block_size_bytes, random_pct, profile
        ) as matched_key,
        testbed,
        profile,
        working_set,
        disk_groups,
        nodes,
        read_pct,
        random_pct,
        block_size_bytes,
        {{ labels_not_in([
            'profile', 'working_set', 'disk_groups', 'nodes', 'read_pct',
            'random_pct', 'block_size_bytes',
        ]) }} as uncarried_labels,
        baseline_profile,
        previous_profile,
        {{ metrics['profile_latency_deltas'] | join(',\n        ') }}

    from profile_latency_deltas

),

profile_deltas_unpivoted as (

    -- a delta against the baseline compares to the baseline profile, one
    -- against the previous profile to that
    select
        * exclude (baseline_profile, previous_profile),
        case
            when metric like '%baseline%' then baseline_profile
            else previous_profile
        end as compared_to

    from (
        {{ unpivot_metrics(
            'profile_deltas_labelled', metrics['profile_latency_deltas']
        ) }}
    ) as metrics_of_profiles

)

select * from profile_deltas_unpivoted
