with

source as (

    select * from {{ source('hcibench', 'hcibench_vsan_datastores') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        case_name,

        ----------  text
        datastore_name,
        vsan_type,
        space_efficiency,
        fault_tolerance_text,
        ftm,

        ----------  numerics
        host_count,
        disk_groups_per_host,
        capacity_disks_per_disk_group,
        ftt,
        secondary_ftt,
        total_cache_disk_size_gb,
        capacity_gb,
        free_space_gb,

        ----------  booleans
        is_local,
        dedupe_enabled as is_dedupe,
        compression_enabled as is_compression,
        checksum_enabled as is_checksum

    from source

)

select * from renamed
