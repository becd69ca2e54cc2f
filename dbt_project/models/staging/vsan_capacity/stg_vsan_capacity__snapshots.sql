with

source as (

    select * from {{ source('vsan_capacity', 'vsan_capacity_snapshots') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,

        ----------  text
        source_kind,
        testbed,
        ftm,
        source_document,
        notes,
        unit_label,
        ratio_reported_source,
        ratio_reported_text,

        ----------  numerics
        ftt,
        total_capacity_bytes,
        free_capacity_bytes,
        logical_used_bytes,
        physical_used_bytes,
        used_before_value,
        used_after_value,
        unit_bytes,
        ratio_computed,
        ratio_reported,
        ratio_tolerance,

        ----------  booleans
        has_efficient_capacity,
        ratio_matches_reported,

        ----------  timestamps
        captured_at

    from source

)

select * from renamed
