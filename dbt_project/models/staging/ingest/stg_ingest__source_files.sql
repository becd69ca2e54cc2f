with

source as (

    select * from {{ source('ingest', 'source_files') }}

),

renamed as (

    select
        ----------  ids
        source_file_id,
        sha256,

        ----------  text
        path as source_path,
        name as source_name,
        folder as source_folder,
        format as source_format,
        parser_version,
        result_per,
        hcibench_case,
        labels_json,
        notes_json,

        ----------  labels (CONTRACT.md section 2)
        json_extract_string(labels_json, '$.testbed') as testbed,
        json_extract_string(labels_json, '$.vsan_version') as vsan_version,
        json_extract_string(labels_json, '$.architecture') as architecture,
        json_extract_string(labels_json, '$.profile') as profile,
        json_extract_string(
            labels_json, '$.profile_order[*]'
        ) as profile_order,
        json_extract_string(labels_json, '$.ftm') as ftm,
        json_extract_string(labels_json, '$.transport') as transport,
        json_extract_string(labels_json, '$.working_set') as working_set,
        json_extract_string(labels_json, '$.storage') as storage,
        json_extract_string(labels_json, '$.host') as host_label,
        json_extract_string(
            labels_json, '$.workload.block_size'
        ) as label_block_size_text,

        ----------  numerics
        size_bytes,
        row_count,
        cast(json_extract(labels_json, '$.nodes') as integer) as nodes,
        cast(json_extract(labels_json, '$.ftt') as integer) as ftt,
        cast(
            json_extract(labels_json, '$.stripe_width') as integer
        ) as stripe_width,
        cast(json_extract(labels_json, '$.osr_pct') as integer) as osr_pct,
        cast(
            json_extract(labels_json, '$.disk_groups') as integer
        ) as disk_groups,
        cast(
            json_extract(labels_json, '$.workload.read_pct') as integer
        ) as label_read_pct,
        cast(
            json_extract(labels_json, '$.workload.random_pct') as integer
        ) as label_random_pct,
        {{ size_to_bytes('label_block_size_text') }} as label_block_size_bytes,
        cast(
            json_extract(labels_json, '$.workload.outstanding_io') as integer
        ) as label_outstanding_io,

        ----------  booleans
        cast(json_extract(labels_json, '$.checksum') as boolean) as is_checksum,
        cast(json_extract(labels_json, '$.dedupe') as boolean) as is_dedupe,
        cast(
            json_extract(labels_json, '$.compression') as boolean
        ) as is_compression,

        ----------  timestamps
        loaded_at

    from source

)

select * from renamed
