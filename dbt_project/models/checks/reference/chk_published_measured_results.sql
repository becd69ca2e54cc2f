{#- The values of the per-result marts (fct_workload_results, per_node_iops,
    result_backend_io) a published figure can be compared with: one row per
    result x metric (NULL kept), with all its labels. -#}
{%- set metrics = published_metrics() -%}
{%- set joined_marts = ['per_node_iops', 'result_backend_io'] -%}
{%- set result_metrics = metrics['fct_workload_results']
    + metrics['per_node_iops'] + metrics['result_backend_io'] -%}

with

{{ import_ctes([
    'int_published_result_labels',
    'fct_workload_results',
    'per_node_iops',
    'result_backend_io',
]) }},

results_labelled as (

    -- a workload result carries every label
    select
        int_published_result_labels.*,
        int_published_result_labels.labelled_result_id as matched_key,
        cast(null as varchar) as compared_to,
        {{ labels_not_in(published_labels()) }} as uncarried_labels,
        {%- for metric in metrics['fct_workload_results'] %}
            cast(fct_workload_results.{{ metric }} as double)
                as {{ metric }},
        {%- endfor %}
        per_node_iops.iops_per_node,
        -- front-end writes x the write amplification of the result's
        -- policy (NULL without a policy label)
        result_backend_io.backend_write_iops

    from int_published_result_labels
    inner join fct_workload_results
        on
            int_published_result_labels.labelled_result_id
            = fct_workload_results.result_id
    left join per_node_iops
        on
            int_published_result_labels.labelled_result_id
            = per_node_iops.result_id
    left join result_backend_io
        on
            int_published_result_labels.labelled_result_id
            = result_backend_io.result_id

),

results_unpivoted as (

    select
        *,
        case
            {%- for mart in joined_marts %}
                when metric in ('{{ metrics[mart] | join("', '") }}')
                    then '{{ mart }}'
            {%- endfor %}
            else 'fct_workload_results'
        end as target_mart

    from (
        {{ unpivot_metrics('results_labelled', result_metrics) }}
    ) as metrics_of_results

)

select * from results_unpivoted
