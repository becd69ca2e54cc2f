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
        {{ agreed_value('read_pct') }} as read_pct,
        {{ agreed_value('random_pct') }} as random_pct,
        {{ agreed_value('block_size_bytes') }} as block_size_bytes,
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
        {{ weighted_mean(
            'completion_latency_mean_ms',
            'total_ios'
        ) }} as avg_latency_ms,
        {%- for direction in ['read', 'write'] %}
            {{ weighted_mean(
                'completion_latency_mean_ms',
                'total_ios',
                "direction = '" ~ direction ~ "'"
            ) }} as {{ direction }}_latency_ms,
        {%- endfor %}

        -- timestamps
        min(started_at) as started_at,
        max(ended_at) as ended_at

    from int_fio_directions_assigned_to_results
    group by result_id, result_key, result_group

)

select * from results_aggregated
