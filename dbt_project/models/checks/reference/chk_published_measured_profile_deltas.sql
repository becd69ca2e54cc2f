{#- The values of profile_latency_deltas a published figure can be compared
    with: one row per profiled configuration x metric, with the labels of
    its first run (the mart holds every other label equal, so every label
    is carried), compared to the baseline or the previous profile. -#}
{%- set metrics = published_metrics() -%}

with

{{ import_ctes(['profile_latency_deltas', 'int_published_result_labels']) }},

profile_deltas_labelled as (

    select
        int_published_result_labels.*,
        'profile_latency_deltas' as target_mart,
        profile_latency_deltas.result_id as matched_key,
        cast([] as varchar[]) as uncarried_labels,
        profile_latency_deltas.baseline_profile,
        profile_latency_deltas.previous_profile,
    {%- for metric in metrics['profile_latency_deltas'] %}
        profile_latency_deltas.{{ metric }}{{ "," if not loop.last }}
    {%- endfor %}

    from profile_latency_deltas
    inner join int_published_result_labels
        on
            profile_latency_deltas.result_id
            = int_published_result_labels.labelled_result_id

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
