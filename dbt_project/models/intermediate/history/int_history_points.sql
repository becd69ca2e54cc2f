{#- One row per workload result x measure of a series: the results of one
    configuration over time (docs/ANALYSES.md, "History and change points").
    A series is a `configuration_signature` of the comparisons (the testbed
    and every counted comparison label, typed, free-form and workload), so
    repeats of a configuration, on one day or over weeks, are its points,
    ordered by run start. `validity_exclusion` names the run-validity rule
    that keeps a result out of change-point detection. -#}
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
]) }},

series_labelled as (

    -- the series' labels: every counted dimension and its value
    select
        result_id,
        any_value(configuration_signature) as series_key,
        to_json(
            map_from_entries(
                list(
                    struct_pack(k := dimension, v := dimension_value)
                    order by dimension
                )
            )
        ) as series_labels_json

    from int_result_comparison_dimensions
    group by result_id

),

results_valued as (

    select
        series_labelled.series_key,
        series_labelled.series_labels_json,
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
                int_workload_results_completed.cpu_util_pct
                >= {{ var('history_cpu_saturated_pct') }}
                then 'host_cpu_saturated'
        end as validity_exclusion

    from series_labelled
    inner join int_workload_results_completed
        on series_labelled.result_id = int_workload_results_completed.result_id
    left join int_result_steady_state_estimated
        on
            series_labelled.result_id
            = int_result_steady_state_estimated.result_id
    -- a result without a start has no place in time
    where int_workload_results_completed.started_at is not null

),

measures_unpivoted as (

    {%- for measure, higher_is_better in measures %}
        select
            series_key,
            series_labels_json,
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
