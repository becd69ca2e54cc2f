with

source as (

    select * from {{ source('hcibench', 'hcibench_summary_blocks') }}

),

renamed as (

    select
        ----------  ids
        _source_file_id as source_file_id,
        case_name,
        block_index,

        ----------  text
        datastore_name,
        job_name,
        rd_name,

        ----------  numerics
        vm_count,
        vms_finished_early,
        iops,
        {{ mib_to_mb('throughput_mib_per_s') }} as throughput_mb_s,
        latency_ms_vm_avg,
        read_latency_ms_vm_avg,
        write_latency_ms_vm_avg,
        p95_read_latency_ms_vm_avg,
        p95_write_latency_ms_vm_avg,
        mixed_latency_ms_summary_derived,
        read_pct_from_name,

        ----------  booleans
        is_partial

    from source

)

select * from renamed
