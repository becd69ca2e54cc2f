{#- One row per workload result x host sample (any metric) of a capture
    attached to the result (int_result_captures_matched: on the result's
    testbed, its labels not contradicting the result's) taken inside the
    result's run window (started_at to ended_at). A sample of overlapping
    runs belongs to each run its capture attaches to; results without a
    window get none. -#}
with

{{ import_ctes(['int_host_samples_labelled']) }},

int_result_captures_matched as (

    select * from {{ ref('int_result_captures_matched') }}
    where is_attached

),

samples_in_run_window as (

    select
        int_result_captures_matched.result_id,
        int_host_samples_labelled.*

    from int_result_captures_matched
    inner join int_host_samples_labelled
        on
            int_result_captures_matched.source_file_id
            = int_host_samples_labelled.source_file_id
            and int_host_samples_labelled.sampled_at
            between int_result_captures_matched.started_at
            and int_result_captures_matched.ended_at

)

select * from samples_in_run_window
