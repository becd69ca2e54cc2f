{#- The latest acceptance run of each spec: the rows of the newest run_at
    per spec in acceptance.verdicts (a view, current as soon as
    `ingest accept --record` has written). -#}
with

{{ import_ctes(['stg_acceptance__verdicts']) }},

latest_run_per_spec as (

    select
        run_at,
        spec,
        rule_name,
        rule_line,
        rule_status,
        result_id,
        testbed,
        profile,
        result_status,
        excluded_by,
        requirement,
        check_status,
        measured,
        limit_value,
        unit,
        reason

    from stg_acceptance__verdicts
    qualify run_at = max(run_at) over (partition by spec)

)

select * from latest_run_per_spec
