{#- One row per capacity observation (a vsan_capacity snapshot file) with
    the testbed, time and storage policy it was taken under: what the
    snapshot itself says wins; run labels fill the gaps (a VsanSpaceUsage
    object names neither its cluster nor its policy). -#}
with

{{ import_ctes(['stg_vsan_capacity__snapshots', 'stg_ingest__source_files']) }},

snapshots_joined_to_labels as (

    select
        stg_vsan_capacity__snapshots.source_file_id,
        stg_vsan_capacity__snapshots.source_kind,
        stg_ingest__source_files.source_name,
        stg_vsan_capacity__snapshots.source_document,
        coalesce(
            stg_vsan_capacity__snapshots.testbed,
            stg_ingest__source_files.testbed
        ) as testbed,
        coalesce(
            stg_vsan_capacity__snapshots.captured_at,
            try_cast(
                json_extract_string(
                    stg_ingest__source_files.labels_json, '$.captured_at'
                ) as timestamptz
            )
        ) as captured_at,
        coalesce(
            stg_vsan_capacity__snapshots.ftm, stg_ingest__source_files.ftm
        ) as ftm,
        coalesce(
            stg_vsan_capacity__snapshots.ftt, stg_ingest__source_files.ftt
        ) as ftt,
        stg_ingest__source_files.architecture,
        -- the run labels of the snapshot's folder: the cluster size decides
        -- the ESA RAID-5 layout; profile and working set say which test
        -- the capacity was observed after
        stg_ingest__source_files.nodes,
        stg_ingest__source_files.profile,
        stg_ingest__source_files.working_set,
        stg_vsan_capacity__snapshots.logical_used_bytes,
        stg_vsan_capacity__snapshots.physical_used_bytes,
        stg_vsan_capacity__snapshots.total_capacity_bytes,
        stg_vsan_capacity__snapshots.free_capacity_bytes,
        stg_vsan_capacity__snapshots.ratio_reported,
        stg_vsan_capacity__snapshots.ratio_reported_source

    from stg_vsan_capacity__snapshots
    inner join stg_ingest__source_files
        on
            stg_vsan_capacity__snapshots.source_file_id
            = stg_ingest__source_files.source_file_id

)

select * from snapshots_joined_to_labels
