{#- One row per capacity observation x object type (vdisk, namespace,
    vmswap, checksumOverhead, ...) of a VsanSpaceUsage snapshot, with its
    share of the observation's used bytes: the sum of used bytes over the
    object types (vSphere's "usage breakdown"; on an OSA dedupe cluster
    the bytes before deduplication and compression). All sizes in bytes. -#}
with

{{ import_ctes(['int_capacity_object_types_labelled']) }},

object_types_shared as (

    select
        -- identifiers
        source_file_id as capacity_observation_id,
        {{ testbed_id('testbed') }} as testbed_id,

        -- dimensions
        testbed,
        architecture,
        nodes,
        ftm,
        ftt,
        profile,
        working_set,
        object_type,
        object_type_ext,
        -- an object type that holds no primary data (file system, checksum
        -- and dedupe metadata, ...) is system overhead, not redundancy
        coalesce(primary_capacity_bytes, 0) = 0 as is_system_overhead,

        -- timestamps
        captured_at,

        -- facts
        used_bytes,
        primary_capacity_bytes,
        overhead_bytes,
        temporary_overhead_bytes,
        provision_capacity_bytes,
        reserved_capacity_bytes,
        over_reserved_bytes,
        physical_used_bytes,
        snapshot_used_bytes,
        sum(used_bytes) over (partition by source_file_id)
            as breakdown_used_bytes,
        100.0 * used_bytes / nullif(
            sum(used_bytes) over (partition by source_file_id), 0
        ) as share_of_used_pct

    from int_capacity_object_types_labelled

)

select * from object_types_shared
