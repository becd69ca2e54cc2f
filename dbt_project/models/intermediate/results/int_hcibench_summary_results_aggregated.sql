{#- Results known only from an HCIBench `-res.txt` summary (the per-VM
    outputs were not kept or not loaded). Summed over the datastore blocks of
    one job; latencies are HCIBench's plain averages over VMs, the only
    figure there is, and say so in `avg_latency_source`. A case whose per-VM
    outputs are loaded is taken from those instead. -#}
with

stg_hcibench__summary_blocks as (

    select * from {{ ref('stg_hcibench__summary_blocks') }}

),

stg_hcibench__cases as (

    select * from {{ ref('stg_hcibench__cases') }}

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

int_fio_results_aggregated as (

    select * from {{ ref('int_fio_results_aggregated') }}

),

int_vdbench_results_aggregated as (

    select * from {{ ref('int_vdbench_results_aggregated') }}

),

groups_with_per_vm_results as (

    select result_group from int_fio_results_aggregated
    union
    select result_group from int_vdbench_results_aggregated

),

blocks_assigned_to_results as (

    select
        stg_hcibench__summary_blocks.*,
        stg_hcibench__cases.started_at,
        stg_hcibench__cases.read_pct,
        stg_hcibench__cases.random_pct,
        stg_hcibench__cases.block_size_bytes,
        stg_hcibench__cases.threads_per_disk,
        {{ case_folder('stg_ingest__source_files') }} as result_group,
        {{ result_key('hcibench', 'result_group', [
            "coalesce(stg_hcibench__summary_blocks.job_name,"
            ~ " stg_hcibench__summary_blocks.rd_name, '')"
        ]) }} as result_key

    from stg_hcibench__summary_blocks
    inner join stg_ingest__source_files
        on
            stg_hcibench__summary_blocks.source_file_id
            = stg_ingest__source_files.source_file_id
    left join stg_hcibench__cases
        on
            stg_hcibench__summary_blocks.source_file_id
            = stg_hcibench__cases.source_file_id

),

blocks_without_per_vm_results as (

    select blocks_assigned_to_results.*
    from blocks_assigned_to_results
    left join groups_with_per_vm_results
        on
            blocks_assigned_to_results.result_group
            = groups_with_per_vm_results.result_group
    where groups_with_per_vm_results.result_group is null

),

results_aggregated as (

    select
        -- identifiers
        {{ result_id('result_key') }} as result_id,
        result_key,
        result_group,
        'hcibench_summary' as source_tool,
        min(source_file_id) as label_source_file_id,

        -- dimensions
        min(read_pct) as read_pct,
        min(random_pct) as random_pct,
        min(block_size_bytes) as block_size_bytes,
        min(threads_per_disk) as outstanding_io,
        cast(sum(vm_count) as bigint) as vm_count,
        -- VMs HCIBench itself left out ("finished testing early")
        cast(sum(coalesce(vms_finished_early, 0)) as bigint) as vms_excluded,
        count(distinct source_file_id) as source_file_count,

        -- facts
        sum(iops) as iops,
        sum(iops * read_pct / 100.0) as read_iops,
        sum(iops * (100 - read_pct) / 100.0) as write_iops,
        sum(throughput_mb_s) as throughput_mb_s,
        cast(null as bigint) as total_ios,
        cast(null as bigint) as io_bytes,
        sum(mixed_latency_ms_summary_derived * iops)
        / nullif(sum(iops), 0) as avg_latency_ms,
        sum(read_latency_ms_vm_avg * iops) / nullif(sum(iops), 0)
            as read_latency_ms,
        sum(write_latency_ms_vm_avg * iops) / nullif(sum(iops), 0)
            as write_latency_ms,

        -- timestamps
        min(started_at) as started_at,
        cast(null as timestamptz) as ended_at

    from blocks_without_per_vm_results
    group by result_key, result_group

)

select * from results_aggregated
