{#- One row per workload result with the labels a published figure can
    pin, named as in published_results (is_dedupe -> dedupe, ...). -#}

with

{{ import_ctes(['fct_workload_results']) }},

results_labelled as (

    select
        fct_workload_results.result_id as labelled_result_id,
        fct_workload_results.testbed,
        fct_workload_results.profile,
        fct_workload_results.working_set,
        -- a free-form run label (SFD7 working sets in GB), from the labels
        json_extract_string(
            fct_workload_results.labels_json, '$.working_set_gb'
        ) as working_set_gb,
        fct_workload_results.transport,
        fct_workload_results.vsan_version,
        fct_workload_results.stripe_width,
        fct_workload_results.storage,
        fct_workload_results.disk_groups,
        fct_workload_results.nodes,
        fct_workload_results.vm_count,
        fct_workload_results.ftm,
        fct_workload_results.ftt,
        fct_workload_results.is_dedupe as dedupe,
        fct_workload_results.is_compression as compression,
        fct_workload_results.is_checksum as checksum,
        fct_workload_results.read_pct,
        fct_workload_results.random_pct,
        fct_workload_results.block_size_bytes,
        fct_workload_results.outstanding_io

    from fct_workload_results

)

select * from results_labelled
