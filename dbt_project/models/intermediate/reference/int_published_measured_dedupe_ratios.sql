{#- The values of dedupe_ratios a published figure can be compared with: one
    row per capacity observation x metric, with the policy and run labels
    of its folder. -#}
{%- set metrics = published_metrics() -%}

with

dedupe_ratios as (

    select * from {{ ref('dedupe_ratios') }}

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

dedupe_ratios_labelled as (

    -- a capacity observation carries the policy and run labels of the
    -- folder it was captured in (density cache vs capacity test), not a
    -- workload
    select
        'dedupe_ratios' as target_mart,
        cast(dedupe_ratios.capacity_observation_id as varchar) as matched_key,
        dedupe_ratios.testbed,
        dedupe_ratios.ftm,
        dedupe_ratios.ftt,
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
        stg_ingest__source_files.is_checksum as checksum,
        {{ labels_not_in([
            'profile', 'working_set', 'working_set_gb', 'vsan_version',
            'stripe_width', 'storage', 'disk_groups', 'nodes', 'ftm', 'ftt',
            'dedupe', 'compression', 'checksum',
        ]) }} as uncarried_labels,
        dedupe_ratios.dedupe_compression_ratio,
        -- the documents print vSphere's capacity, whose "TB" is TiB (the
        -- vsan_capacity parser reads it so); compare in the printed unit
        dedupe_ratios.logical_used_bytes / 1024 ^ 4 as capacity_used_before_tb,
        dedupe_ratios.physical_used_bytes / 1024 ^ 4 as capacity_used_after_tb,
        dedupe_ratios.capacity_multiplier,
        dedupe_ratios.usable_to_raw_ratio

    from dedupe_ratios
    left join stg_ingest__source_files
        on
            dedupe_ratios.capacity_observation_id
            = stg_ingest__source_files.source_file_id

),

dedupe_ratios_unpivoted as (

    {{ unpivot_metrics('dedupe_ratios_labelled', metrics['dedupe_ratios']) }}

)

select * from dedupe_ratios_unpivoted
