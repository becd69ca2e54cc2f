{#- One row per workload result x capture file (esxtop, vSAN Observer, vSAN
    performance service) with samples on the result's testbed inside its
    run window (started_at to ended_at), and whether the capture attaches
    to the result: the one rule that matches host captures to results
    (docs/ANALYSES.md). A capture attaches unless its file's labels
    contradict the result's: a label both carry with different values
    (transport, profile, any comparison dimension, workload labels). Captures
    started by hand around each run overlap the next run's window; their
    labels keep a TCP run's samples out of the RDMA run that follows it.
    Labels that only say where a file comes from never count: the
    comparisons' bookkeeping labels and `host` (the host a capture was
    taken on). A capture labelled with its testbed only attaches by testbed
    and window. Labels are flattened and compared as the comparisons
    flatten them (macros/comparisons.sql). -#}
{%- set provenance = comparison_bookkeeping_labels() + ['host'] -%}

with

{{ import_ctes(['int_host_samples_labelled', 'stg_ingest__source_files']) }},

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}
    where started_at is not null and ended_at is not null

),

captures_in_run_windows as (

    select
        int_workload_results_labelled.result_id,
        int_workload_results_labelled.label_source_file_id,
        int_workload_results_labelled.started_at,
        int_workload_results_labelled.ended_at,
        int_host_samples_labelled.source_file_id,
        int_host_samples_labelled.testbed_id,
        count(distinct int_host_samples_labelled.sampled_at)
            as window_sample_count

    from int_workload_results_labelled
    inner join int_host_samples_labelled
        on
            int_workload_results_labelled.testbed_id
            = int_host_samples_labelled.testbed_id
            and int_host_samples_labelled.sampled_at
            between int_workload_results_labelled.started_at
            and int_workload_results_labelled.ended_at
    group by
        int_workload_results_labelled.result_id,
        int_workload_results_labelled.label_source_file_id,
        int_workload_results_labelled.started_at,
        int_workload_results_labelled.ended_at,
        int_host_samples_labelled.source_file_id,
        int_host_samples_labelled.testbed_id

),

captures_described as (

    -- a capture's tool, hosts and whole span (it may run past the window)
    select
        source_file_id,
        min(source_tool) as source_tool,
        string_agg(distinct host_name, ', ' order by host_name) as host_names,
        min(sampled_at) as first_sampled_at,
        max(sampled_at) as last_sampled_at

    from int_host_samples_labelled
    group by source_file_id

),

files_compared as (

    -- the captures' files and the files the results' labels come from
    select stg_ingest__source_files.*

    from stg_ingest__source_files
    where
        stg_ingest__source_files.source_file_id in (
            select captures_in_run_windows.source_file_id
            from captures_in_run_windows
            union all
            select captures_in_run_windows.label_source_file_id
            from captures_in_run_windows
        )

),

file_labels_flattened as (

    {{ run_labels_flattened('files_compared', ['source_file_id']) }}

),

file_labels_compared as (

    select
        source_file_id,
        label,
        {{ canonical_label_text('label', 'json_type', 'value_raw') }}
            as value_text

    from file_labels_flattened
    where label not in {{ sql_text_list(provenance) }}

),

capture_labels as (

    select * from file_labels_compared

),

result_labels as (

    select * from file_labels_compared

),

labels_contradicted as (

    -- every label both files carry with different values, one reason
    select
        captures_in_run_windows.result_id,
        captures_in_run_windows.source_file_id,
        string_agg(
            capture_labels.label || ': ' || capture_labels.value_text
            || ' (capture) vs ' || result_labels.value_text || ' (result)',
            '; '
            order by capture_labels.label
        ) as left_out_reason

    from captures_in_run_windows
    inner join capture_labels
        on
            captures_in_run_windows.source_file_id
            = capture_labels.source_file_id
    inner join result_labels
        on
            captures_in_run_windows.label_source_file_id
            = result_labels.source_file_id
            and capture_labels.label = result_labels.label
    where capture_labels.value_text != result_labels.value_text
    group by
        captures_in_run_windows.result_id,
        captures_in_run_windows.source_file_id

),

captures_matched as (

    select
        -- identifiers
        captures_in_run_windows.result_id,
        captures_in_run_windows.source_file_id,
        captures_in_run_windows.testbed_id,

        -- dimensions
        files_compared.source_path,
        captures_described.source_tool,
        captures_described.host_names,
        labels_contradicted.left_out_reason is null as is_attached,
        labels_contradicted.left_out_reason,

        -- timestamps: the result's run window, the capture's whole span
        captures_in_run_windows.started_at,
        captures_in_run_windows.ended_at,
        captures_described.first_sampled_at,
        captures_described.last_sampled_at,

        -- facts
        captures_in_run_windows.window_sample_count

    from captures_in_run_windows
    inner join captures_described
        on
            captures_in_run_windows.source_file_id
            = captures_described.source_file_id
    inner join files_compared
        on
            captures_in_run_windows.source_file_id
            = files_compared.source_file_id
    left join labels_contradicted
        on
            captures_in_run_windows.result_id = labels_contradicted.result_id
            and captures_in_run_windows.source_file_id
            = labels_contradicted.source_file_id

)

select * from captures_matched
