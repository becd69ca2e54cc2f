{#- One row per object type of a VsanSpaceUsage snapshot (the
    `spaceDetail.spaceUsageByObjectType[]` entries; the `spaceOverview`
    row is left out: it is the cluster total, after data efficiency on an
    OSA dedupe cluster, not a part of the breakdown), with the labels of
    its capacity observation: the object types of the file each observation
    keeps (int_capacity_observations), so a capture loaded as JSON and as
    XML is counted once. -#}
with

{{ import_ctes(['int_capacity_observations']) }},

stg_vsan_capacity__space_usage_by_object_type as (

    select * from {{ ref('stg_vsan_capacity__space_usage_by_object_type') }}
    where scope = 'object_type'

),

object_types_labelled as (

    select
        object_types.source_file_id,
        snapshots.testbed,
        snapshots.captured_at,
        snapshots.architecture,
        snapshots.nodes,
        snapshots.ftm,
        snapshots.ftt,
        snapshots.profile,
        snapshots.working_set,
        object_types.object_type,
        object_types.object_type_ext,
        object_types.used_bytes,
        object_types.primary_capacity_bytes,
        object_types.overhead_bytes,
        object_types.temporary_overhead_bytes,
        object_types.provision_capacity_bytes,
        object_types.reserved_capacity_bytes,
        object_types.over_reserved_bytes,
        object_types.physical_used_bytes,
        object_types.snapshot_used_bytes

    from stg_vsan_capacity__space_usage_by_object_type as object_types
    inner join int_capacity_observations as snapshots
        on object_types.source_file_id = snapshots.source_file_id

)

select * from object_types_labelled
