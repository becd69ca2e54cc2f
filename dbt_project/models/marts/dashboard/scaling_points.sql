{#- One row per workload result with its per-node IOPS (per_node_iops) and
    the result's other scaling axes and measures: what the scaling page
    plots against nodes, VMs, block size, outstanding I/O and working set,
    with the five label columns the dashboard filters on, and the disk
    groups and storage that tell two results at one node count apart. -#}
with

{{ import_ctes(['per_node_iops', 'fct_workload_results']) }},

results_scaled as (

    select
        -- identifiers
        per_node_iops.result_id,
        per_node_iops.testbed_id,

        -- dimensions
        per_node_iops.testbed,
        per_node_iops.profile,
        fct_workload_results.transport,
        per_node_iops.working_set,
        fct_workload_results.vsan_version,
        per_node_iops.nodes,
        fct_workload_results.vm_count,
        per_node_iops.read_pct,
        per_node_iops.random_pct,
        per_node_iops.block_size_bytes,
        per_node_iops.outstanding_io,
        fct_workload_results.disk_groups,
        fct_workload_results.storage,

        -- facts
        per_node_iops.iops,
        per_node_iops.iops_per_node,
        fct_workload_results.throughput_mb_s,
        fct_workload_results.avg_latency_ms,
        per_node_iops.host_count,
        per_node_iops.host_iops_min,
        per_node_iops.host_iops_max,
        per_node_iops.host_imbalance_pct,

        -- metadata
        per_node_iops.host_iops_source

    from per_node_iops
    inner join fct_workload_results
        on per_node_iops.result_id = fct_workload_results.result_id

)

select * from results_scaled
