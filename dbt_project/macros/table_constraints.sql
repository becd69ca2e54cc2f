{% macro enforce_table_constraints() -%}
    {#- The `not_null` and `unique` constraints of a table model, checked right
        after it is built. A table's YAML declares them instead of data tests:
        `constraints: [{type: not_null}, {type: unique}]` on a column, and
        `constraints: [{type: unique, columns: [a, b]}]` on the model for a
        combination. This post-hook runs in the model's own transaction, one
        query for them all; a violation fails the model ("NOT NULL constraint
        failed: <table>.<column>", "UNIQUE constraint failed: <table>.(<key>):
        2 rows hold <value>"), as the test failed the build, so nothing
        downstream is built and nothing is published. Semantics are the
        tests': a unique column ignores NULLs (dbt's `unique`), a unique
        combination groups NULLs together (tests/generic).
        Why not tests: each data test is a dbt node of its own (about 25 ms of
        dbt's overhead before any SQL), and a new fio file rebuilds about 50
        tables whose 158 such tests were nearly half of the 350 nodes of `ingest
        build` (issue 30). Why queries and not `alter table ... set not null`
        or a unique index: DuckLake refuses the first on a table just created
        in the transaction or without statistics and has no unique
        constraints, so they would hold in one mode only; `error()` raises the
        same way in both. Not a dbt model contract: that needs every column's
        data_type. Views keep their tests: a view cannot hold a constraint,
        and one declared on it fails the build rather than check nothing. -#}
    {%- set not_null, unique_keys = [], [] -%}
    {%- for column in model.columns.values() -%}
        {%- set kinds = column.constraints | map(attribute='type') | list -%}
        {%- if 'not_null' in kinds -%}
            {%- do not_null.append(column.name) -%}
        {%- endif -%}
        {%- if 'unique' in kinds -%}
            {%- do unique_keys.append(
                {'columns': [column.name], 'nulls': false}
            ) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for constraint in model.constraints -%}
        {%- if constraint.type == 'unique' -%}
            {%- do unique_keys.append(
                {'columns': constraint.columns, 'nulls': true}
            ) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set declared = not_null or unique_keys -%}
    {%- if declared and model.config.materialized != 'table' -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ " is a " ~ model.config.materialized
            ~ ": it declares not_null or unique constraints, which only a"
            ~ " table can enforce; give it data tests instead") }}
    {%- endif -%}
    {%- set failures = [] -%}
    {%- if not_null -%}
        {%- do failures.append(_not_null_failures(not_null)) -%}
    {%- endif -%}
    {%- for key in unique_keys -%}
        {%- do failures.append(_unique_failures(key.columns, key.nulls)) -%}
    {%- endfor -%}
    {%- if failures -%}
        select error(failure)
        from ({{ failures | join(' union all ') }}) as failures
        limit 1
    {%- endif -%}
{%- endmacro %}


{% macro _not_null_failures(columns) -%}
    {%- set is_null, named = [], [] -%}
    {%- for name in columns -%}
        {%- do is_null.append(adapter.quote(name) ~ ' is null') -%}
        {%- do named.append(
            'when ' ~ adapter.quote(name) ~ " is null then '" ~ name ~ "'"
        ) -%}
    {%- endfor -%}
    select
        'NOT NULL constraint failed: {{ this.identifier }}.'
        || case {{ named | join(' ') }} end as failure
    from {{ this }}
    where {{ is_null | join(' or ') }}
{%- endmacro %}


{% macro _unique_failures(columns, nulls_together) -%}
    {%- set quoted = [] -%}
    {%- for name in columns -%}
        {%- do quoted.append(adapter.quote(name)) -%}
    {%- endfor -%}
    select
        'UNIQUE constraint failed: {{ this.identifier }}.({{ columns | join(", ") }}): '
        || count(*) || ' rows hold '
        || cast(row({{ quoted | join(', ') }}) as varchar) as failure
    from {{ this }}
    {%- if not nulls_together %}
        where {{ quoted | join(' is not null and ') }} is not null
    {%- endif %}
    group by {{ quoted | join(', ') }}
    having count(*) > 1
{%- endmacro %}
