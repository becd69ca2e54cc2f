with

{{ import_ctes([
    'int_fio_results_aggregated',
    'int_fio_result_percentiles_derived',
    'int_vdbench_results_aggregated',
    'int_hcibench_summary_results_aggregated',
]) }},

fio_results_with_percentiles as (

    select
        int_fio_results_aggregated.*,
        int_fio_result_percentiles_derived.p95_latency_ms,
        int_fio_result_percentiles_derived.p99_latency_ms,
        coalesce(
            int_fio_result_percentiles_derived.p95_latency_source,
            'not_reported'
        ) as p95_latency_source,
        coalesce(
            int_fio_result_percentiles_derived.p99_latency_source,
            'not_reported'
        ) as p99_latency_source,
        'io_weighted' as avg_latency_source

    from int_fio_results_aggregated
    left join int_fio_result_percentiles_derived
        on
            int_fio_results_aggregated.result_id
            = int_fio_result_percentiles_derived.result_id

),

other_results_without_percentiles as (

    -- Vdbench totals carry no percentiles (its 95%tile in HCIBench
    -- summaries is a normal-distribution estimate, not a percentile), nor
    -- do HCIBench summaries (their 95th percentiles are averages over VMs),
    -- whose latencies are plain averages over VMs too
    select
        *,
        cast(null as double) as p95_latency_ms,
        cast(null as double) as p99_latency_ms,
        'not_reported' as p95_latency_source,
        'not_reported' as p99_latency_source,
        case source_tool
            when 'hcibench_summary' then 'hcibench_summary_vm_average'
            else 'io_weighted'
        end as avg_latency_source,
        -- Vdbench's response time is the whole I/O's; HCIBench's summary
        -- averages fio's total latency or Vdbench's response time
        case
            when avg_latency_ms is not null then 'total'
        end as avg_latency_kind

    from (
        select * from int_vdbench_results_aggregated
        union all by name
        select * from int_hcibench_summary_results_aggregated
    ) as other_results

),

results_unioned as (

    select * from fio_results_with_percentiles
    union all by name
    select * from other_results_without_percentiles

)

select * from results_unioned
