{#- One row per workload result x measure of a series: the results of one
    configuration over time (docs/ANALYSES.md, "History and change points").
    A series is the testbed and every counted comparison label (typed,
    free-form and workload) but the event labels (var history_event_labels:
    vsan_version, ...): those describe the cluster's state over time, so an
    upgrade is an event on the series, not the start of a new one. Repeats of
    a configuration, on one day or over weeks, are its points, ordered by run
    start. `validity_exclusion` names the run-validity rule that keeps a
    result out of change-point detection. -#}
{%- set event_labels = var('history_event_labels') -%}
{%- set measures = [
    ('iops', true),
    ('throughput_mb_s', true),
    ('avg_latency_ms', false),
    ('p99_latency_ms', false),
    ('iops_per_cpu_pct', true),
] -%}

with

{{ import_ctes([
    'int_result_comparison_dimensions',
    'int_workload_results_completed',
    'int_result_steady_state_estimated',
    'int_result_host_cpu_saturation',
]) }},

dimensions_split as (

    select
        result_id,
        testbed_id,
        dimension,
        dimension_value,
        dimension in {{ sql_text_list(event_labels) }} as is_event_label

    from int_result_comparison_dimensions

),

series_labelled as (

    -- the series' labels: every counted dimension but the event labels, as
    -- the comparisons' configuration_signature hashes them (so a result
    -- without event labels keeps its signature); the event labels' values
    -- apart
    select
        result_id,
        md5(
            any_value(testbed_id)
            || to_json(
                coalesce(
                    list(
                        struct_pack(
                            dimension := dimension,
                            dimension_value := dimension_value
                        )
                        order by dimension
                    ) filter (where not is_event_label),
                    []
                )
            )
        ) as series_key,
        to_json(
            coalesce(
                map_from_entries(
                    list(
                        struct_pack(k := dimension, v := dimension_value)
                        order by dimension
                    ) filter (where not is_event_label)
                ),
                map()
            )
        ) as series_labels_json,
        to_json(
            map_from_entries(
                list(
                    struct_pack(k := dimension, v := dimension_value)
                    order by dimension
                ) filter (where is_event_label)
            )
        ) as event_labels_json

    from dimensions_split
    group by result_id

),

results_valued as (

    select
        series_labelled.series_key,
        series_labelled.series_labels_json,
        series_labelled.event_labels_json,
        int_workload_results_completed.result_id,
        int_workload_results_completed.testbed_id,
        int_workload_results_completed.testbed,
        int_workload_results_completed.started_at,
        int_workload_results_completed.iops,
        int_workload_results_completed.throughput_mb_s,
        int_workload_results_completed.avg_latency_ms,
        int_workload_results_completed.p99_latency_ms,
        case
            when int_workload_results_completed.cpu_util_pct > 0
                then
                    int_workload_results_completed.iops
                    / int_workload_results_completed.cpu_util_pct
        end as iops_per_cpu_pct,
        -- run validity, first rule that applies
        case
            when int_workload_results_completed.is_partial then 'partial'
            when
                not int_result_steady_state_estimated.is_steady_state
                then 'not_steady'
            when
                int_result_host_cpu_saturation.is_host_cpu_saturated
                then 'host_cpu_saturated'
        end as validity_exclusion

    from series_labelled
    inner join int_workload_results_completed
        on series_labelled.result_id = int_workload_results_completed.result_id
    left join int_result_steady_state_estimated
        on
            series_labelled.result_id
            = int_result_steady_state_estimated.result_id
    left join int_result_host_cpu_saturation
        on
            series_labelled.result_id
            = int_result_host_cpu_saturation.result_id
    -- a result without a start has no place in time
    where int_workload_results_completed.started_at is not null

),

measures_unpivoted as (

    {%- for measure, higher_is_better in measures %}
        select
            series_key,
            series_labels_json,
            event_labels_json,
            testbed_id,
            testbed,
            result_id,
            started_at,
            '{{ measure }}' as measure,
            {{ higher_is_better }} as higher_is_better,
            {{ measure }} as value,
            validity_exclusion
        from results_valued
        where {{ measure }} is not null
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

points_ordered as (

    select
        -- identifiers
        series_key,
        result_id,
        measure,

        -- dimensions
        testbed_id,
        testbed,
        series_labels_json,
        event_labels_json,
        started_at,
        row_number() over (
            partition by series_key, measure order by started_at, result_id
        ) - 1 as series_position,

        -- facts
        higher_is_better,
        value,
        validity_exclusion

    from measures_unpivoted

)

select * from points_ordered
