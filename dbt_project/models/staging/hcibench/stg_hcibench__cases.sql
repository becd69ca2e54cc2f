with

source as (

    select * from {{ source('hcibench', 'hcibench_cases') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        case_name,

        ----------  text
        param_name,
        tool,
        summary_layout,
        hcibench_release_hint,

        ----------  numerics
        disks_per_vm,
        working_set_pct,
        block_size_bytes,
        read_pct,
        random_pct,
        threads_per_disk,
        datastore_count,
        block_count,
        cut_line,

        ----------  booleans
        all_vms_finished_early,
        is_partial,

        ----------  timestamps
        started_at

    from source

)

select * from renamed
