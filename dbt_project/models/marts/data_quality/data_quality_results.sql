{#- The latest expectations run: the rows of the newest run_at in
    data_quality.validation_results (a view, current as soon as the
    expectations have written). -#}
with

{{ import_ctes(['stg_data_quality__validation_results']) }},

latest_run as (

    select
        run_at,
        suite,
        table_name,
        expectation,
        severity,
        success,
        observed,
        unexpected_count,
        notes

    from stg_data_quality__validation_results
    qualify run_at = max(run_at) over ()

)

select * from latest_run
