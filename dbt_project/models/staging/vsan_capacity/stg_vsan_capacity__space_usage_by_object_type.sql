with

source as (

    select *
    from {{ source('vsan_capacity', 'vsan_space_usage_by_object_type') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,

        ----------  text
        scope,
        obj_type as object_type,
        obj_type_ext as object_type_ext,

        ----------  numerics (bytes)
        overhead_bytes,
        temporary_overhead_bytes,
        primary_capacity_bytes,
        provision_capacity_bytes,
        reserved_capacity_bytes,
        over_reserved_bytes,
        physical_used_bytes,
        used_bytes,
        snapshot_used_bytes

    from source

)

select * from renamed
