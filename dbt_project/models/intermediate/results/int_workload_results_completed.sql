{#- One row per workload result, complete: int_workload_results_labelled with
    the hosts' CPU (captured samples in the run window, else HCIBench's
    resource usage), the outputs left out and the HCIBench -res.txt
    cross-check, and whether (and why) the result is partial.
    fct_workload_results publishes it as it is; the intermediate models that
    compare results read it here, below the marts. -#}
with

{{ import_ctes([
    'int_workload_results_labelled',
    'int_hcibench_case_cpu_averaged',
    'int_result_outputs_excluded',
]) }},

int_result_hosts_measured as (

    select * from {{ ref('int_result_hosts_measured') }}
    where host_origin = 'capture'

),

captured_cpu_averaged as (

    select
        result_id,
        avg(host_cpu_util_pct) as cpu_util_pct,
        -- esxtop's 1-minute load average, the hosts' mean (as RA tables
        -- print "CPU load avg": 0.65 = 65 % of the CPUs busy or queued)
        avg(host_cpu_load) as cpu_load_avg

    from int_result_hosts_measured
    where host_cpu_util_pct is not null or host_cpu_load is not null
    group by result_id

),

results_joined_to_cpu as (

    select
        -- identifiers
        int_workload_results_labelled.result_id,
        int_workload_results_labelled.testbed_id,
        int_workload_results_labelled.workload_id,
        int_workload_results_labelled.result_key,

        -- dimensions
        int_workload_results_labelled.testbed,
        int_workload_results_labelled.profile,
        int_workload_results_labelled.transport,
        int_workload_results_labelled.vsan_version,
        int_workload_results_labelled.working_set,
        int_workload_results_labelled.nodes,
        int_workload_results_labelled.vm_count,
        int_workload_results_labelled.read_pct,
        int_workload_results_labelled.random_pct,
        int_workload_results_labelled.block_size_bytes,
        int_workload_results_labelled.outstanding_io,
        int_workload_results_labelled.architecture,
        int_workload_results_labelled.profile_order,
        int_workload_results_labelled.ftm,
        int_workload_results_labelled.ftt,
        int_workload_results_labelled.is_checksum,
        int_workload_results_labelled.is_dedupe,
        int_workload_results_labelled.is_compression,
        int_workload_results_labelled.stripe_width,
        int_workload_results_labelled.osr_pct,
        int_workload_results_labelled.disk_groups,
        int_workload_results_labelled.storage,
        int_workload_results_labelled.source_tool,

        -- timestamps
        int_workload_results_labelled.started_at,
        int_workload_results_labelled.ended_at,

        -- facts
        int_workload_results_labelled.iops,
        int_workload_results_labelled.read_iops,
        int_workload_results_labelled.write_iops,
        int_workload_results_labelled.throughput_mb_s,
        int_workload_results_labelled.avg_latency_ms,
        int_workload_results_labelled.read_latency_ms,
        int_workload_results_labelled.write_latency_ms,
        int_workload_results_labelled.p95_latency_ms,
        int_workload_results_labelled.p99_latency_ms,
        coalesce(
            captured_cpu_averaged.cpu_util_pct,
            int_hcibench_case_cpu_averaged.cpu_util_pct
        ) as cpu_util_pct,
        captured_cpu_averaged.cpu_load_avg,
        int_workload_results_labelled.total_ios,
        int_workload_results_labelled.io_bytes,
        int_workload_results_labelled.bytes_per_io,

        -- completeness: outputs left out, and the HCIBench -res.txt
        -- figures of the case against the recomputed sums
        coalesce(
            int_result_outputs_excluded.vms_excluded,
            int_workload_results_labelled.vms_excluded,
            0
        ) as vms_excluded,
        coalesce(
            int_workload_results_labelled.is_summary_cut, false
        ) as is_summary_cut,
        int_workload_results_labelled.summary_cut_line,
        int_workload_results_labelled.source_tool = 'hcibench_summary'
            as is_summary_derived,
        int_result_outputs_excluded.summary_iops,
        int_result_outputs_excluded.summary_throughput_mb_s,
        {{ pct_change(
            'int_result_outputs_excluded.summary_iops',
            'int_workload_results_labelled.iops'
        ) }} as summary_iops_delta_pct,
        {{ pct_change(
            'int_result_outputs_excluded.summary_throughput_mb_s',
            'int_workload_results_labelled.throughput_mb_s'
        ) }} as summary_throughput_delta_pct,

        -- metadata
        int_workload_results_labelled.avg_latency_source,
        int_workload_results_labelled.avg_latency_kind,
        int_workload_results_labelled.p95_latency_source,
        int_workload_results_labelled.p99_latency_source,
        case
            when captured_cpu_averaged.cpu_util_pct is not null then 'capture'
            when
                int_hcibench_case_cpu_averaged.cpu_util_pct is not null
                then 'hcibench_resource_usage'
        end as cpu_util_source,
        int_workload_results_labelled.source_file_count,
        int_workload_results_labelled.label_source_file_id,
        int_workload_results_labelled.labels_json

    from int_workload_results_labelled
    left join captured_cpu_averaged
        on
            int_workload_results_labelled.result_id
            = captured_cpu_averaged.result_id
    left join int_hcibench_case_cpu_averaged
        on
            int_workload_results_labelled.result_group
            = int_hcibench_case_cpu_averaged.result_group
    left join int_result_outputs_excluded
        on
            int_workload_results_labelled.result_id
            = int_result_outputs_excluded.result_id

),

results_marked_partial as (

    -- partial: outputs left out, or (summary-only results) a -res.txt cut
    -- short; the reason says which, so a partial sum is never read as whole
    select
        * exclude (is_summary_cut, summary_cut_line),
        vms_excluded > 0 or is_summary_cut as is_partial,
        nullif(concat_ws(
            '; ',
            case
                when vms_excluded > 0 and source_tool = 'hcibench_summary'
                    then
                        vms_excluded
                        || ' VM(s) finished testing early:'
                        || ' left out of the summary'
                when vms_excluded > 0
                    then vms_excluded || ' output(s) never finished: left out'
            end,
            case
                when is_summary_cut
                    then
                        'HCIBench -res.txt cut short'
                        || coalesce(' at line ' || summary_cut_line, '')
                        || ': values after the cut are missing'
            end
        ), '') as partial_reason

    from results_joined_to_cpu

)

select * from results_marked_partial
