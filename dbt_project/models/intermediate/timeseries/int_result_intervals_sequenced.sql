{#- One row per workload result x interval (int_result_intervals_summed), in
    order: its position (1 = first), the result's interval count, the
    interval's length and start on the result's clock. fio prints each
    interval's length; Vdbench does not, so its length is the time since
    the previous interval's end (the next one's for the first interval:
    Vdbench intervals share one length). -#}
with

{{ import_ctes(['int_result_intervals_summed']) }},

intervals_ordered as (

    select
        result_id,
        interval_index,
        elapsed_s,
        iops,
        throughput_mb_s,
        avg_latency_ms,
        row_number() over by_result as interval_position,
        count(*) over (partition by result_id) as interval_count,
        coalesce(
            interval_s,
            elapsed_s - lag(elapsed_s) over by_result,
            lead(elapsed_s) over by_result - elapsed_s
        ) as interval_length_s

    from int_result_intervals_summed
    window by_result as (partition by result_id order by interval_index)

),

intervals_sequenced as (

    select
        -- identifiers
        result_id,

        -- dimensions
        interval_index,
        interval_position,
        interval_count,
        elapsed_s - interval_length_s as start_s,
        elapsed_s as end_s,
        interval_length_s,

        -- facts
        iops,
        throughput_mb_s,
        avg_latency_ms

    from intervals_ordered

)

select * from intervals_sequenced
