{#- One row per workload result x host sample (any metric) taken on the
    result's testbed inside its run window (started_at to ended_at): the one
    rule that attaches capture samples to results. A sample of overlapping
    runs belongs to each of them; results without a window get none. -#}
with

{{ import_ctes(['int_host_samples_labelled']) }},

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}
    where started_at is not null and ended_at is not null

),

samples_in_run_window as (

    select
        int_workload_results_labelled.result_id,
        int_host_samples_labelled.*

    from int_workload_results_labelled
    inner join int_host_samples_labelled
        on
            int_workload_results_labelled.testbed_id
            = int_host_samples_labelled.testbed_id
            and int_host_samples_labelled.sampled_at
            between int_workload_results_labelled.started_at
            and int_workload_results_labelled.ended_at

)

select * from samples_in_run_window
