{#- HCIBench's own record of host CPU during a test case (`-res.txt`
    resource section, resource_util.info): one row per case folder, the
    cluster average; physical-CPU utilisation (2.8+) before logical-CPU usage
    (Observer PCPU in <= 2.5). -#}
with

{{ import_ctes(['stg_hcibench__resource_usage', 'stg_ingest__source_files']) }},

usage_assigned_to_cases as (

    select
        stg_hcibench__resource_usage.*,
        {{ case_folder('stg_ingest__source_files') }} as result_group

    from stg_hcibench__resource_usage
    inner join stg_ingest__source_files
        on
            stg_hcibench__resource_usage.source_file_id
            = stg_ingest__source_files.source_file_id

),

cases_averaged as (

    select
        result_group,
        coalesce(
            avg(cpu_utilization_pct) filter (where is_average),
            avg(cpu_usage_pct) filter (where is_average),
            avg(cpu_utilization_pct),
            avg(cpu_usage_pct)
        ) as cpu_util_pct

    from usage_assigned_to_cases
    group by result_group

)

select * from cases_averaged
