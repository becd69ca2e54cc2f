{% macro create_review_landing() -%}
    {#- The copy of the change-point review store (warehouse/reviews.py) that
        `python -m ingest build` refreshes before dbt runs: one row per
        decision, the history kept. dbt creates it empty (on-run-start), so a
        plain `dbt build` of a warehouse nobody reviewed in still builds
        marts.change_points; warehouse/reviews.py writes the same DDL. -#}
    create schema if not exists reviews;
    create table if not exists reviews.change_point_decisions (
        series_key varchar not null,
        measure varchar not null,
        result_id varchar not null,
        review_state varchar not null,
        reviewed_by varchar,
        reviewed_at timestamptz not null,
        review_note varchar
    )
{%- endmacro %}
