{#- One row per configuration: the results of one testbed whose counted
    comparison dimensions are all equal (repeated runs), their mean
    metrics, and the standard error of the mean IOPS and mean latency with
    its degrees of freedom: across runs when there are two or more (the
    runs are the independent observations), else the within-run
    batch-means interval of int_result_steady_state_estimated. -#}
{%- set measures = [
    'iops', 'throughput_mb_s', 'avg_latency_ms', 'p95_latency_ms',
    'p99_latency_ms', 'cpu_util_pct', 'cpu_load_avg',
] -%}

with

{{ import_ctes([
    'int_result_comparison_dimensions',
    'int_workload_results_completed',
    'int_result_steady_state_estimated',
]) }},

results_configured as (

    select distinct
        result_id,
        testbed_id,
        configuration_signature

    from int_result_comparison_dimensions

),

results_measured as (

    select
        results_configured.configuration_signature,
        results_configured.testbed_id,
        int_workload_results_completed.result_id,
        int_workload_results_completed.started_at,
        {%- for measure in measures %}
            int_workload_results_completed.{{ measure }},
        {%- endfor %}
        -- the within-run standard error, back from the batch-means
        -- interval: half-width / t(batches - 1)
        {%- for metric in ['iops', 'avg_latency_ms'] %}
            (
                int_result_steady_state_estimated.{{ metric }}_ci95_high
                - int_result_steady_state_estimated.{{ metric }}_ci95_low
            )
            / 2.0
            / {{ student_t_975(
                'int_result_steady_state_estimated.batch_count - 1'
            ) }}
                as {{ metric }}_within_run_se,
        {%- endfor %}
        int_result_steady_state_estimated.batch_count - 1 as within_run_df

    from results_configured
    inner join int_workload_results_completed
        on
            results_configured.result_id
            = int_workload_results_completed.result_id
    left join int_result_steady_state_estimated
        on
            results_configured.result_id
            = int_result_steady_state_estimated.result_id

),

configurations_aggregated as (

    -- a configuration's value is the mean over its runs; the first run
    -- (earliest start, then result_id) stands for it
    select
        configuration_signature,
        testbed_id,
        first(result_id order by started_at nulls last, result_id)
            as first_result_id,
        count(*) as run_count,
        {%- for measure in measures %}
            avg({{ measure }}) as {{ measure }},
        {%- endfor %}
        {%- for metric in ['iops', 'avg_latency_ms'] %}
            stddev_samp({{ metric }}) / sqrt(count({{ metric }}))
                as {{ metric }}_across_runs_se,
            count({{ metric }}) - 1 as {{ metric }}_across_runs_df,
            any_value({{ metric }}_within_run_se) as {{ metric }}_within_run_se,
        {%- endfor %}
        any_value(within_run_df) as within_run_df

    from results_measured
    group by configuration_signature, testbed_id

),

spread_chosen as (

    select
        -- identifiers
        configuration_signature,
        testbed_id,
        first_result_id,

        -- facts
        run_count,
        {%- for measure in measures %}
            {{ measure }},
        {%- endfor %}
        {%- for metric in ['iops', 'avg_latency_ms'] %}
            case
                when run_count >= 2 then {{ metric }}_across_runs_se
                else {{ metric }}_within_run_se
            end as {{ metric }}_se,
            case
                when run_count >= 2 then {{ metric }}_across_runs_df
                when {{ metric }}_within_run_se is not null then within_run_df
            end as {{ metric }}_df,
        {%- endfor %}
        case
            when run_count >= 2 then 'across_runs'
            when iops_within_run_se is not null then 'within_run_batch_means'
        end as spread_source

    from configurations_aggregated

)

select * from spread_chosen
