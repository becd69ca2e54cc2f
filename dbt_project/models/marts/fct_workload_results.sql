with

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}

),

int_result_hosts_measured as (

    select * from {{ ref('int_result_hosts_measured') }}
    where host_origin = 'capture'

),

int_hcibench_case_cpu_averaged as (

    select * from {{ ref('int_hcibench_case_cpu_averaged') }}

),

int_result_outputs_excluded as (

    select * from {{ ref('int_result_outputs_excluded') }}

),

results_keyed as (

    select
        *,
        case
            when testbed is null then '-1' else md5(testbed)
        end as testbed_id,
        case
            when
                read_pct is null
                and random_pct is null
                and block_size_bytes is null
                and outstanding_io is null
                then '-1'
            else
                md5(
                    concat_ws(
                        '|',
                        coalesce(cast(read_pct as varchar), '?'),
                        coalesce(cast(random_pct as varchar), '?'),
                        coalesce(cast(block_size_bytes as varchar), '?'),
                        coalesce(cast(outstanding_io as varchar), '?')
                    )
                )
        end as workload_id

    from int_workload_results_labelled

),

captured_cpu_averaged as (

    select
        result_id,
        avg(host_cpu_util_pct) as cpu_util_pct

    from int_result_hosts_measured
    where host_cpu_util_pct is not null
    group by result_id

),

results_joined_to_cpu as (

    select
        -- identifiers
        results_keyed.result_id,
        results_keyed.testbed_id,
        results_keyed.workload_id,
        results_keyed.result_key,

        -- dimensions
        results_keyed.testbed,
        results_keyed.profile,
        results_keyed.transport,
        results_keyed.vsan_version,
        results_keyed.working_set,
        results_keyed.nodes,
        results_keyed.vm_count,
        results_keyed.read_pct,
        results_keyed.random_pct,
        results_keyed.block_size_bytes,
        results_keyed.outstanding_io,
        results_keyed.architecture,
        results_keyed.profile_order,
        results_keyed.ftm,
        results_keyed.ftt,
        results_keyed.is_checksum,
        results_keyed.is_dedupe,
        results_keyed.is_compression,
        results_keyed.stripe_width,
        results_keyed.osr_pct,
        results_keyed.disk_groups,
        results_keyed.storage,
        results_keyed.source_tool,

        -- timestamps
        results_keyed.started_at,
        results_keyed.ended_at,

        -- facts
        results_keyed.iops,
        results_keyed.read_iops,
        results_keyed.write_iops,
        results_keyed.throughput_mb_s,
        results_keyed.avg_latency_ms,
        results_keyed.read_latency_ms,
        results_keyed.write_latency_ms,
        results_keyed.p95_latency_ms,
        results_keyed.p99_latency_ms,
        coalesce(
            captured_cpu_averaged.cpu_util_pct,
            int_hcibench_case_cpu_averaged.cpu_util_pct
        ) as cpu_util_pct,
        results_keyed.total_ios,
        results_keyed.io_bytes,

        -- completeness: outputs left out, and the HCIBench -res.txt
        -- figures of the case against the recomputed sums
        coalesce(
            int_result_outputs_excluded.vms_excluded,
            results_keyed.vms_excluded,
            0
        ) as vms_excluded,
        coalesce(
            int_result_outputs_excluded.vms_excluded,
            results_keyed.vms_excluded,
            0
        ) > 0 as is_partial,
        results_keyed.source_tool = 'hcibench_summary' as is_summary_derived,
        int_result_outputs_excluded.summary_iops,
        int_result_outputs_excluded.summary_throughput_mb_s,
        100.0
        * (int_result_outputs_excluded.summary_iops - results_keyed.iops)
        / nullif(results_keyed.iops, 0) as summary_iops_delta_pct,
        100.0
        * (
            int_result_outputs_excluded.summary_throughput_mb_s
            - results_keyed.throughput_mb_s
        )
        / nullif(results_keyed.throughput_mb_s, 0)
            as summary_throughput_delta_pct,

        -- metadata
        results_keyed.avg_latency_source,
        results_keyed.p95_latency_source,
        results_keyed.p99_latency_source,
        case
            when captured_cpu_averaged.cpu_util_pct is not null then 'capture'
            when
                int_hcibench_case_cpu_averaged.cpu_util_pct is not null
                then 'hcibench_resource_usage'
        end as cpu_util_source,
        results_keyed.source_file_count,
        results_keyed.label_source_file_id,
        results_keyed.labels_json

    from results_keyed
    left join captured_cpu_averaged
        on
            results_keyed.result_id
            = captured_cpu_averaged.result_id
    left join int_hcibench_case_cpu_averaged
        on
            results_keyed.result_group
            = int_hcibench_case_cpu_averaged.result_group
    left join int_result_outputs_excluded
        on results_keyed.result_id = int_result_outputs_excluded.result_id

)

select * from results_joined_to_cpu
