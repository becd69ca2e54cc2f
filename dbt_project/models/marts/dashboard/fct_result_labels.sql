{#- One row per workload result x run label: the free-form labels of
    `run.yaml` and `--label`, kept as JSON text in
    fct_workload_results.labels_json, unnested so the dashboard reads named
    columns instead of parsing JSON. Scalar values as text, nested values
    as their JSON text; results whose labels_json is not valid JSON have no
    rows. -#}
with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}
    where json_valid(labels_json)

),

labels_unnested as (

    select
        -- identifiers
        fct_workload_results.result_id,

        -- dimensions
        labels.key as label_key,
        coalesce(
            json_extract_string(labels.value, '$'), labels.value::varchar
        ) as label_value

    from fct_workload_results,
        json_each(fct_workload_results.labels_json) as labels

)

select * from labels_unnested
