{#- Results known only from an HCIBench `-res.txt` summary (the per-VM
    outputs were not kept or not loaded). Summed over the datastore blocks of
    one job; latencies are HCIBench's plain averages over VMs, the only
    figure there is, and say so in `avg_latency_source`. A case whose per-VM
    outputs are loaded is taken from those instead. A summary cut short (the
    file ends inside a line, or a block lacks values its layout prints) makes
    its results partial: `is_summary_cut`, `summary_cut_line`. -#}
with

{{ import_ctes([
    'int_hcibench_summary_blocks_assigned',
    'int_fio_results_aggregated',
    'int_vdbench_results_aggregated',
]) }},

groups_with_per_vm_results as (

    select result_group from int_fio_results_aggregated
    union
    select result_group from int_vdbench_results_aggregated

),

blocks_without_per_vm_results as (

    select int_hcibench_summary_blocks_assigned.*
    from int_hcibench_summary_blocks_assigned
    left join groups_with_per_vm_results
        on
            int_hcibench_summary_blocks_assigned.result_group
            = groups_with_per_vm_results.result_group
    where groups_with_per_vm_results.result_group is null

),

results_aggregated as (

    select
        -- identifiers
        result_id,
        result_key,
        result_group,
        'hcibench_summary' as source_tool,
        {{ earliest_loaded_file() }} as label_source_file_id,

        -- dimensions
        min(read_pct) as read_pct,
        min(random_pct) as random_pct,
        min(block_size_bytes) as block_size_bytes,
        min(threads_per_disk) as outstanding_io,
        cast(sum(vm_count) as bigint) as vm_count,
        -- VMs HCIBench itself left out ("finished testing early")
        cast(sum(coalesce(vms_finished_early, 0)) as bigint) as vms_excluded,
        count(distinct source_file_id) as source_file_count,
        -- a cut summary: blocks after the cut (other datastores) are
        -- missing and the sums cover part of the job
        bool_or(is_cut) as is_summary_cut,
        min(cut_line) as summary_cut_line,

        -- facts
        {{ iops_split_by_read_pct('iops', 'read_pct') }},
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
    group by result_id, result_key, result_group

)

select * from results_aggregated
