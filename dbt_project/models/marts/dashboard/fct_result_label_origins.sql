{#- One row per workload result x label or workload field, with where the
    value came from: the run explorer's "labels and their origin" panel.
    Run labels (fct_result_labels) come from the run.yaml files of the
    folder chain of the result's label file, or from `--label`; the loader
    merges them key by key and records the merged set, so `origin_detail`
    names that folder (the run.yaml files at or above it), not one file.
    The workload fields (read %, random %, block size, outstanding I/O) come
    from a run.yaml `workload` override when there is one, else from the
    tool output (fio job options, Vdbench run definition), or for a result
    known only from an HCIBench summary from the test-case name. -#}
with

{{ import_ctes([
    'fct_workload_results',
    'fct_result_labels',
    'stg_ingest__source_files',
]) }},

results_with_label_file as (

    select
        fct_workload_results.*,
        stg_ingest__source_files.source_folder as label_folder,
        stg_ingest__source_files.hcibench_case,
        stg_ingest__source_files.label_read_pct,
        stg_ingest__source_files.label_random_pct,
        stg_ingest__source_files.label_block_size_bytes,
        stg_ingest__source_files.label_outstanding_io
    from fct_workload_results
    left join stg_ingest__source_files
        on
            fct_workload_results.label_source_file_id
            = stg_ingest__source_files.source_file_id

),

run_labels as (

    select
        fct_result_labels.result_id,
        fct_result_labels.label_key,
        fct_result_labels.label_value,
        'run.yaml or --label' as origin,
        'run.yaml files in ' || coalesce(
            results_with_label_file.label_folder, '(unknown folder)'
        ) || ' or above, then --label' as origin_detail
    from fct_result_labels
    inner join results_with_label_file
        on fct_result_labels.result_id = results_with_label_file.result_id

),

workload_fields as (

    {%- for field in [
        'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io'
    ] %}
        select
            result_id,
            '{{ field }}' as label_key,
            {{ field }}::varchar as label_value,
            label_{{ field }} is not null as has_override,
            source_tool,
            hcibench_case
        from results_with_label_file
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}

),

workload_origins as (

    select
        result_id,
        label_key,
        label_value,
        case
            when has_override then 'run.yaml workload override'
            when label_value is null then 'not reported'
            when source_tool = 'hcibench_summary' then 'HCIBench test-case name'
            else 'tool output'
        end as origin,
        case
            when has_override then 'run.yaml `workload` key (or --label)'
            when label_value is null
                then 'neither the tool output nor a label says'
            when source_tool = 'hcibench_summary' then hcibench_case
            else source_tool || ' output'
        end as origin_detail
    from workload_fields

),

origins_unioned as (

    select * from run_labels
    union all
    select * from workload_origins

)

select * from origins_unioned
