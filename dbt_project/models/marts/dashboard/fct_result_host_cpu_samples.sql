{#- One row per workload result x host CPU sample of a capture attached to
    it (int_result_captures_matched: on the result's testbed, inside its run
    window, labels that do not contradict the result's): the host CPU the run
    explorer draws for a result. A sample of overlapping runs belongs to each
    of them its labels agree with. The sample's columns are
    fct_host_cpu_samples' own. -#}
with

{{ import_ctes(['int_result_host_samples', 'fct_host_cpu_samples']) }},

samples_in_run_window as (

    select
        int_result_host_samples.result_id,
        fct_host_cpu_samples.*

    from int_result_host_samples
    -- a sample key stands for every metric of its host and time
    inner join fct_host_cpu_samples
        on
            int_result_host_samples.host_sample_id
            = fct_host_cpu_samples.host_cpu_sample_id
            and int_result_host_samples.metric = 'cpu_util_pct'

)

select * from samples_in_run_window
