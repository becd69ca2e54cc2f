{#- One row per capacity observation (a capacity source file) with the run
    labels of the folder it was captured in, named as in published_results
    (is_dedupe -> dedupe, ...): a capacity snapshot carries the policy and
    run labels (density cache vs capacity test), not a workload. -#}

with

{{ import_ctes(['stg_ingest__source_files']) }},

capacity_files_labelled as (

    select
        stg_ingest__source_files.source_file_id as capacity_observation_id,
        stg_ingest__source_files.profile,
        stg_ingest__source_files.working_set,
        json_extract_string(
            stg_ingest__source_files.labels_json, '$.working_set_gb'
        ) as working_set_gb,
        stg_ingest__source_files.vsan_version,
        stg_ingest__source_files.stripe_width,
        stg_ingest__source_files.storage,
        stg_ingest__source_files.disk_groups,
        stg_ingest__source_files.nodes,
        stg_ingest__source_files.is_dedupe as dedupe,
        stg_ingest__source_files.is_compression as compression,
        stg_ingest__source_files.is_checksum as checksum

    from stg_ingest__source_files

)

select * from capacity_files_labelled
