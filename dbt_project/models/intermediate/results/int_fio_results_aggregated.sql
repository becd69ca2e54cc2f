with

int_fio_directions_assigned_to_results as (

    select * from {{ ref('int_fio_directions_assigned_to_results') }}

),

results_aggregated as (

    select
        -- identifiers
        result_id,
        result_key,
        result_group,
        'fio' as source_tool,
        -- every output of a result shares its folder, hence its labels
        min(source_file_id) as label_source_file_id,

        -- dimensions: NULL when the outputs disagree (a stonewall group
        -- mixing workloads)
        case
            when min(read_pct) = max(read_pct) then min(read_pct)
        end as read_pct,
        case
            when min(random_pct) = max(random_pct) then min(random_pct)
        end as random_pct,
        case
            when
                min(block_size_bytes) = max(block_size_bytes)
                then min(block_size_bytes)
        end as block_size_bytes,
        max(iodepth) as outstanding_io,
        count(distinct output_key) as vm_count,
        count(distinct source_file_id) as source_file_count,

        -- facts: sums of rates and counts, I/O-weighted mean latencies
        sum(iops) as iops,
        sum(iops) filter (where direction = 'read') as read_iops,
        sum(iops) filter (where direction = 'write') as write_iops,
        sum(throughput_mb_s) as throughput_mb_s,
        sum(total_ios) as total_ios,
        sum(io_bytes) as io_bytes,
        sum(completion_latency_mean_ms * total_ios)
        / nullif(
            sum(total_ios) filter (
                where completion_latency_mean_ms is not null
            ),
            0
        ) as avg_latency_ms,
        sum(completion_latency_mean_ms * total_ios) filter (
            where direction = 'read'
        )
        / nullif(
            sum(total_ios) filter (
                where direction = 'read'
                and completion_latency_mean_ms is not null
            ),
            0
        ) as read_latency_ms,
        sum(completion_latency_mean_ms * total_ios) filter (
            where direction = 'write'
        )
        / nullif(
            sum(total_ios) filter (
                where direction = 'write'
                and completion_latency_mean_ms is not null
            ),
            0
        ) as write_latency_ms,

        -- timestamps
        min(started_at) as started_at,
        max(ended_at) as ended_at

    from int_fio_directions_assigned_to_results
    group by result_id, result_key, result_group

)

select * from results_aggregated
