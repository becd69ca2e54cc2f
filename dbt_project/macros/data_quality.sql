{% macro create_data_quality_landing() -%}
    {#- The table the expectations append each run's outcomes to (history
        kept, one run_at per run). dbt owns its DDL and creates it before
        any model (on-run-start): the marts.data_quality_results view
        selects from it, and DuckDB cannot create a view over a table that
        does not exist yet. -#}
    create schema if not exists data_quality;
    create table if not exists data_quality.validation_results (
        run_at timestamptz not null,
        suite varchar not null,
        table_name varchar not null,
        expectation varchar not null,
        severity varchar not null,
        success boolean,
        observed varchar,
        unexpected_count bigint,
        notes varchar
    )
{%- endmacro %}
