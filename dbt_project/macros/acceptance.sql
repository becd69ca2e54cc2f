{% macro create_acceptance_landing() -%}
    {#- The table `python -m ingest accept --record` appends each run's
        verdicts to (history kept, one run_at per run). dbt owns its DDL and
        creates it before any model (on-run-start), as for
        data_quality.validation_results: the marts.acceptance_results view
        selects from it. -#}
    create schema if not exists acceptance;
    create table if not exists acceptance.verdicts (
        run_at timestamptz not null,
        spec varchar not null,
        rule_name varchar not null,
        rule_line integer not null,
        rule_status varchar not null,
        result_id varchar,
        testbed varchar,
        profile varchar,
        result_status varchar,
        excluded_by varchar,
        requirement varchar,
        check_status varchar,
        measured double,
        limit_value double,
        unit varchar,
        reason varchar
    )
{%- endmacro %}
