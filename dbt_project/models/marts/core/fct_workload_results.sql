{#- The workload results, as int_workload_results_completed builds them: the
    logic lives there because intermediate models read it too, and no
    intermediate model reads a mart. -#}
with

{{ import_ctes(['int_workload_results_completed']) }}

select * from int_workload_results_completed
