{#- One row per workload result with the labels a published figure can
    pin, named as in published_results (is_dedupe -> dedupe, ...). -#}

with

{{ import_ctes(['int_workload_results_completed']) }},

results_labelled as (

    select
        int_workload_results_completed.result_id as labelled_result_id,
        int_workload_results_completed.testbed,
        int_workload_results_completed.profile,
        int_workload_results_completed.working_set,
        -- a free-form run label (SFD7 working sets in GB), from the labels
        json_extract_string(
            int_workload_results_completed.labels_json, '$.working_set_gb'
        ) as working_set_gb,
        int_workload_results_completed.transport,
        int_workload_results_completed.vsan_version,
        int_workload_results_completed.stripe_width,
        int_workload_results_completed.storage,
        int_workload_results_completed.disk_groups,
        int_workload_results_completed.nodes,
        int_workload_results_completed.vm_count,
        int_workload_results_completed.ftm,
        int_workload_results_completed.ftt,
        int_workload_results_completed.is_dedupe as dedupe,
        int_workload_results_completed.is_compression as compression,
        int_workload_results_completed.is_checksum as checksum,
        int_workload_results_completed.read_pct,
        int_workload_results_completed.random_pct,
        int_workload_results_completed.block_size_bytes,
        int_workload_results_completed.outstanding_io

    from int_workload_results_completed

)

select * from results_labelled
