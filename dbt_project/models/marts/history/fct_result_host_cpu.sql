-- One row per workload result: its host CPU and whether the hosts were
-- saturated, as history's run validity judged it
-- (int_result_host_cpu_saturation), for `ingest accept` and the dashboard.
with

{{ import_ctes(['int_result_host_cpu_saturation']) }}

select * from int_result_host_cpu_saturation
