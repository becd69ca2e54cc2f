with

stg_vsan_capacity__snapshots as (

    select * from {{ ref('stg_vsan_capacity__snapshots') }}

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

snapshots_joined_to_labels as (

    -- what the snapshot itself says wins; run labels fill the gaps (a
    -- VsanSpaceUsage object names neither its cluster nor its policy)
    select
        stg_vsan_capacity__snapshots.source_file_id,
        stg_vsan_capacity__snapshots.source_kind,
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

),

ratios_computed as (

    select
        -- identifiers
        source_file_id as capacity_observation_id,
        case when testbed is null then '-1' else md5(testbed) end as testbed_id,

        -- dimensions
        testbed,
        ftm,
        ftt,
        architecture,
        source_kind,
        source_document,

        -- timestamps
        captured_at,

        -- facts
        logical_used_bytes,
        physical_used_bytes,
        total_capacity_bytes,
        free_capacity_bytes,
        -- "used before" over "used after" (vSphere's OSA ratio); the
        -- reported ratio only where the bytes are not there
        coalesce(
            cast(logical_used_bytes as double)
            / nullif(physical_used_bytes, 0),
            ratio_reported
        ) as dedupe_compression_ratio,
        ratio_reported,
        ratio_reported_source,
        {{ capacity_multiplier('ftm', 'ftt', 'architecture') }}
            as capacity_multiplier,
        dedupe_compression_ratio / capacity_multiplier as usable_to_raw_ratio

    from snapshots_joined_to_labels

)

select * from ratios_computed
