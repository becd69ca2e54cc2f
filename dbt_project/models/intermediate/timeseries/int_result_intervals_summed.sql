{#- One row per workload result x reporting interval: IOPS and MB/s summed
    over the result's outputs, mean latency weighted by I/O (fio:
    `--status-interval` dumps, per-interval differences; Vdbench: the
    interval lines of each output's run). `elapsed_s` is seconds since the
    end of the result's first interval (fio: the job's elapsed time;
    Vdbench: its time of day, as Vdbench prints no date).
    fct_result_intervals publishes it as it is. -#}
with

{{ import_ctes(['stg_fio__intervals', 'stg_vdbench__intervals']) }},

int_workload_results_completed as (

    select result_id from {{ ref('int_workload_results_completed') }}

),

int_result_outputs_keyed as (

    select * from {{ ref('int_result_outputs_keyed') }}
    where is_contributing

),

fio_intervals_summed as (

    select
        int_result_outputs_keyed.result_id,
        stg_fio__intervals.dump_index as interval_index,
        'fio' as source_tool,
        max(stg_fio__intervals.elapsed_end_ms) / 1000.0 as elapsed_end_s,
        max(stg_fio__intervals.interval_ms) / 1000.0 as interval_s,
        {{ summed_outputs(
            'stg_fio__intervals', 'fio_job_id', 'lat_mean_ms', 'ios'
        ) }}

    from stg_fio__intervals
    inner join int_result_outputs_keyed
        on stg_fio__intervals.fio_job_id = int_result_outputs_keyed.fio_job_id
    group by all

),

vdbench_intervals_summed as (

    select
        int_result_outputs_keyed.result_id,
        stg_vdbench__intervals.interval_index,
        'vdbench' as source_tool,
        max(stg_vdbench__intervals.tod_ms) / 1000.0 as elapsed_end_s,
        cast(null as double) as interval_s,
        {{ summed_outputs(
            'stg_vdbench__intervals', 'source_file_id', 'avg_latency_ms', 'iops'
        ) }}

    from stg_vdbench__intervals
    inner join int_result_outputs_keyed
        on
            stg_vdbench__intervals.source_file_id
            = int_result_outputs_keyed.source_file_id
            and stg_vdbench__intervals.run_index
            = int_result_outputs_keyed.run_index
    group by all

),

intervals_unioned as (

    select * from fio_intervals_summed
    union all
    select * from vdbench_intervals_summed

),

intervals_timed as (

    select
        -- identifiers
        {{ hashed_key([
            'intervals_unioned.result_id', 'intervals_unioned.interval_index'
        ]) }} as result_interval_id,
        intervals_unioned.result_id,

        -- dimensions
        intervals_unioned.interval_index,
        intervals_unioned.source_tool,
        intervals_unioned.elapsed_end_s - min(intervals_unioned.elapsed_end_s)
            over (partition by intervals_unioned.result_id)
            as elapsed_s,
        intervals_unioned.interval_s,

        -- facts
        intervals_unioned.output_count,
        intervals_unioned.iops,
        intervals_unioned.throughput_mb_s,
        intervals_unioned.avg_latency_ms

    from intervals_unioned
    inner join int_workload_results_completed
        on
            intervals_unioned.result_id
            = int_workload_results_completed.result_id

)

select * from intervals_timed
