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
        -- where `ingest load` found it (NULL: loaded before loads recorded it)
        {{ column_or_null(source('ingest', 'source_files'), 'load_root') }}
            as load_root,
        {{ column_or_null(source('ingest', 'source_files'), 'path_in_root') }}
            as path_in_root,
        format as source_format,
        parser_version,
        result_per,
        hcibench_case,
        labels_json,
        notes_json,

        ----------  labels (CONTRACT.md section 2), typed by
        ----------  seeds/label_definitions.csv through label_value
        {{ label_value('testbed') }} as testbed,
        {{ label_value('vsan_version') }} as vsan_version,
        {{ label_value('architecture') }} as architecture,
        {{ label_value('profile') }} as profile,
        {{ label_value('profile_order') }} as profile_order,
        {{ label_value('ftm') }} as ftm,
        {{ label_value('transport') }} as transport,
        {{ label_value('working_set') }} as working_set,
        {{ label_value('storage') }} as storage,
        -- free-form: not in the definitions
        json_extract_string(labels_json, '$.host') as host_label,

        ----------  numerics
        size_bytes,
        row_count,
        {{ label_value('nodes') }} as nodes,
        {{ label_value('ftt') }} as ftt,
        {{ label_value('stripe_width') }} as stripe_width,
        {{ label_value('osr_pct') }} as osr_pct,
        {{ label_value('disk_groups') }} as disk_groups,
        {{ label_value('workload.read_pct') }} as label_read_pct,
        {{ label_value('workload.random_pct') }} as label_random_pct,
        {{ label_value('workload.block_size') }} as label_block_size_bytes,
        {{ label_value('workload.outstanding_io') }} as label_outstanding_io,

        ----------  booleans
        {{ label_value('checksum') }} as is_checksum,
        {{ label_value('dedupe') }} as is_dedupe,
        {{ label_value('compression') }} as is_compression,

        ----------  timestamps
        loaded_at

    from source

)

select * from renamed
