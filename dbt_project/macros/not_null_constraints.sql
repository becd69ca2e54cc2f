{% macro enforce_not_null_constraints() -%}
    {#- The `not_null` constraints of a table model's columns, checked right
        after it is built. A column of a table declares
        `constraints: [{type: not_null}]` in its YAML instead of a `not_null`
        data test. This post-hook runs in the model's own transaction, one scan
        of the table for all its constrained columns; a NULL fails the model
        with "NOT NULL constraint failed: <table>.<column>", as the test failed
        the build, so nothing downstream is built and nothing is published.
        Why not the test: each data test is a dbt node of its own (about 25 ms
        of dbt's overhead before any SQL), and a new fio file rebuilds about 50
        tables whose 111 `not_null` tests were a third of the nodes of
        `ingest build` (issue 30). Why a query and not `alter table ... set
        not null`: DuckLake refuses that on a table just created in the
        transaction or without statistics (an empty table), so it would hold
        in one mode only; `error()` raises the same way in both. Not a dbt
        model contract: that needs every column's data_type. Views keep the
        test: a view cannot hold a constraint, and one declared on it fails
        the build rather than check nothing. -#}
    {%- set constrained = [] -%}
    {%- for column in model.columns.values() -%}
        {%- set kinds = column.constraints | map(attribute='type') | list -%}
        {%- if 'not_null' in kinds -%}
            {%- do constrained.append(column.name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if constrained and model.config.materialized != 'table' -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ " is a " ~ model.config.materialized
            ~ ": its columns " ~ constrained | join(", ")
            ~ " declare not_null constraints, which only a table can"
            ~ " enforce; give them a not_null data test instead") }}
    {%- endif -%}
    {%- if constrained -%}
        {%- set is_null, named = [], [] -%}
        {%- for name in constrained -%}
            {%- do is_null.append(adapter.quote(name) ~ ' is null') -%}
            {%- do named.append(
                'when ' ~ adapter.quote(name) ~ " is null then '" ~ name ~ "'"
            ) -%}
        {%- endfor -%}
        select
            error(
                'NOT NULL constraint failed: {{ this.identifier }}.'
                || case {{ named | join(' ') }} end
            )
        from {{ this }}
        where {{ is_null | join(' or ') }}
        limit 1
    {%- endif -%}
{%- endmacro %}
