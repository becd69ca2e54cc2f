with

{{ import_ctes(['int_fio_directions_assigned_to_results']) }},

jobs_of_results as (

    -- one row per job entry of a result (the directions repeat it)
    select distinct
        result_id,
        fio_job_id,
        source_file_id,
        run_index,
        group_id,
        job_name,
        host_name,
        iodepth,
        numjobs

    from int_fio_directions_assigned_to_results

),

jobs_outstanding as (

    -- the I/Os a job entry keeps in flight: iodepth per clone times the
    -- clones the entry stands for. Without group_reporting fio prints one
    -- entry per clone (numjobs entries of one name), with it one entry for
    -- all numjobs clones (FORMATS.md 1.3): an entry alone under its name
    -- in its reporting group stands for numjobs clones, one of several
    -- for itself
    select
        result_id,
        iodepth
        * case
            when
                count(*) over (
                    partition by
                        source_file_id, run_index, group_id, job_name,
                        host_name
                ) = 1
                then coalesce(numjobs, 1)
            else 1
        end as outstanding_io,
        iodepth is null as is_iodepth_unknown

    from jobs_of_results

),

results_outstanding as (

    -- workload.outstanding_io means the whole test's: the sum over every
    -- job entry of every output (8 hosts at iodepth 32 keep 256 in flight,
    -- not 32); unknown when one entry does not say its iodepth
    select
        result_id,
        case
            when not bool_or(is_iodepth_unknown)
                then cast(sum(outstanding_io) as bigint)
        end as outstanding_io

    from jobs_outstanding
    group by result_id

),

results_aggregated as (

    select
        -- identifiers
        result_id,
        result_key,
        result_group,
        'fio' as source_tool,
        -- every output of a result shares its folder, hence its labels
        {{ earliest_loaded_file() }} as label_source_file_id,

        -- dimensions: NULL when the outputs disagree (a stonewall group
        -- mixing workloads)
        {{ agreed_value('read_pct') }} as read_pct,
        {{ agreed_value('random_pct') }} as random_pct,
        {{ agreed_value('block_size_bytes') }} as block_size_bytes,
        -- the sum over the result's job entries, results_outstanding
        cast(null as bigint) as outstanding_io,
        count(distinct output_key) as vm_count,
        count(distinct source_file_id) as source_file_count,

        -- facts: sums of rates and counts, I/O-weighted mean latencies
        sum(iops) as iops,
        sum(iops) filter (where direction = 'read') as read_iops,
        sum(iops) filter (where direction = 'write') as write_iops,
        sum(throughput_mb_s) as throughput_mb_s,
        sum(total_ios) as total_ios,
        sum(io_bytes) as io_bytes,
        sum(io_bytes) / nullif(sum(total_ios), 0) as bytes_per_io,
        {{ weighted_mean(
            'avg_latency_mean_ms',
            'total_ios'
        ) }} as avg_latency_ms,
        {{ latency_kind_of_mean('avg_latency_kind') }} as avg_latency_kind,
        {%- for direction in ['read', 'write'] %}
            {{ weighted_mean(
                'avg_latency_mean_ms',
                'total_ios',
                "direction = '" ~ direction ~ "'"
            ) }} as {{ direction }}_latency_ms,
        {%- endfor %}

        -- timestamps
        min(started_at) as started_at,
        max(ended_at) as ended_at

    from int_fio_directions_assigned_to_results
    group by result_id, result_key, result_group

),

results_with_outstanding_io as (

    select
        results_aggregated.* replace (
            results_outstanding.outstanding_io as outstanding_io
        )

    from results_aggregated
    inner join results_outstanding
        on results_aggregated.result_id = results_outstanding.result_id

)

select * from results_with_outstanding_io
