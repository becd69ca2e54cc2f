with

int_capacity_snapshots_labelled as (

    select * from {{ ref('int_capacity_snapshots_labelled') }}

),

ratios_computed as (

    select
        -- identifiers
        source_file_id as capacity_observation_id,
        {{ testbed_id('testbed') }} as testbed_id,

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

    from int_capacity_snapshots_labelled

)

select * from ratios_computed
