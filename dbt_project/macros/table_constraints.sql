{% macro enforce_table_constraints() -%}
    {#- The constraints of a table model, checked right after it is built. A
        table's YAML declares them instead of data tests, with dbt's constraint
        types:
        - `{type: not_null}` and `{type: unique}` on a column, and
          `{type: unique, columns: [a, b]}` on the model for a combination
          (a unique column ignores NULLs, as dbt's `unique`; a combination
          groups them, as tests/generic/unique_combination_of_columns);
        - `{type: foreign_key, to: "ref('parent')", to_columns: [key]}` on a
          column (or with `columns:` on the model): every non-NULL value is a
          key of the parent, as dbt's `relationships` test (dbt makes `to` a
          dependency, so the parent is built first);
        - `{type: check, expression: "..."}` on a column or the model: no row
          makes the expression false (NULL passes, as in SQL and in dbt's
          `accepted_values`), e.g. `transport in ('tcp', 'rdma')`.
        This post-hook runs in the model's own transaction, one query for them
        all; a violation fails the model, as the test failed the build, so
        nothing downstream is built and nothing is published. The message
        names the table, the constraint and an offending value ("NOT NULL
        constraint failed: <table>.<column>", "UNIQUE constraint failed:
        <table>.(<key>): 2 rows hold <value>", "FOREIGN KEY constraint failed:
        <table>.(<key>) = <value> is not in <parent>.(<key>)", "CHECK
        constraint failed: <table>: <expression>: N rows, e.g. <value>").
        Why not tests: each data test is a dbt node of its own (about 25 ms of
        dbt's Python before any SQL), and a new fio file rebuilds about 50
        tables whose tests were most of the nodes of `ingest build` (issue
        30). Why queries and not DDL (`alter table ... set not null`, unique
        indexes, foreign keys): DuckLake refuses the first on a table just
        created in the transaction and has no unique or foreign keys, so they
        would hold in one mode only; `error()` raises the same way in both.
        Not a dbt model contract: that needs every column's data_type. Views
        keep their tests: a view cannot hold a constraint, and one declared on
        it fails the build rather than check nothing. -#}
    {%- set not_null, unique_keys, foreign_keys, checks = [], [], [], [] -%}
    {%- for column in model.columns.values() -%}
        {%- for constraint in column.constraints -%}
            {%- if constraint.type == 'not_null' -%}
                {%- do not_null.append(column.name) -%}
            {%- elif constraint.type == 'unique' -%}
                {%- do unique_keys.append(
                    {'columns': [column.name], 'nulls': false}
                ) -%}
            {%- elif constraint.type == 'foreign_key' -%}
                {%- do foreign_keys.append(
                    {'columns': [column.name], 'constraint': constraint}
                ) -%}
            {%- elif constraint.type == 'check' -%}
                {%- do checks.append(
                    {'column': column.name, 'constraint': constraint}
                ) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- for constraint in model.constraints -%}
        {%- if constraint.type == 'unique' -%}
            {%- do unique_keys.append(
                {'columns': constraint.columns, 'nulls': true}
            ) -%}
        {%- elif constraint.type == 'foreign_key' -%}
            {%- do foreign_keys.append(
                {'columns': constraint.columns, 'constraint': constraint}
            ) -%}
        {%- elif constraint.type == 'check' -%}
            {%- do checks.append({'column': none, 'constraint': constraint}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set declared = not_null or unique_keys or foreign_keys or checks -%}
    {%- if declared and model.config.materialized != 'table' -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ " is a " ~ model.config.materialized
            ~ ": it declares constraints, which only a table can enforce;"
            ~ " give it data tests instead") }}
    {%- endif -%}
    {%- set failures = [] -%}
    {%- if not_null -%}
        {%- do failures.append(_not_null_failures(not_null)) -%}
    {%- endif -%}
    {%- for key in unique_keys -%}
        {%- do failures.append(_unique_failures(key.columns, key.nulls)) -%}
    {%- endfor -%}
    {%- for key in foreign_keys -%}
        {%- do failures.append(
            _foreign_key_failures(key.columns, key.constraint)
        ) -%}
    {%- endfor -%}
    {%- for check in checks -%}
        {%- do failures.append(
            _check_failures(check.column, check.constraint.expression)
        ) -%}
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


{% macro _foreign_key_failures(columns, constraint) -%}
    {%- set parent_columns = constraint.to_columns or [] -%}
    {%- if not constraint.to or parent_columns | length != columns | length -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ": a foreign_key constraint on (" ~ columns | join(", ")
            ~ ") needs `to` and as many `to_columns`") }}
    {%- endif -%}
    {%- set child, matched, present = [], [], [] -%}
    {%- for name in columns -%}
        {%- set parent_name = parent_columns[loop.index0] -%}
        {%- set quoted = 'child.' ~ adapter.quote(name) -%}
        {%- do child.append(quoted) -%}
        {%- do present.append(quoted ~ ' is not null') -%}
        {%- do matched.append(
            'parent.' ~ adapter.quote(parent_name)
            ~ ' = child.' ~ adapter.quote(name)
        ) -%}
    {%- endfor -%}
    {%- set key = this.identifier ~ '.(' ~ columns | join(', ') ~ ')' -%}
    {%- set parent_key = constraint.to
        ~ '.(' ~ parent_columns | join(', ') ~ ')' -%}
    select
        'FOREIGN KEY constraint failed: {{ key }} = '
        || cast(row({{ child | join(', ') }}) as varchar)
        || ' is not in {{ parent_key | replace("'", "''") }}' as failure
    from {{ this }} as child
    where
        {{ present | join(' and ') }}
        and not exists (
            select 1 from {{ constraint.to }} as parent
            where {{ matched | join(' and ') }}
        )
{%- endmacro %}


{% macro _check_failures(column, expression) -%}
    {%- if not expression -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ": a check constraint needs an `expression`") }}
    {%- endif -%}
    {%- set place = this.identifier ~ ('.' ~ column if column else '') -%}
    {%- set said = place ~ ': ' ~ expression -%}
    {%- set example = "''" if not column else "', e.g. ' || coalesce(cast("
        ~ "any_value(" ~ adapter.quote(column) ~ ") as varchar), 'NULL')" -%}
    select
        'CHECK constraint failed: {{ said | replace("'", "''") }}: '
        || count(*) || ' rows' || {{ example }} as failure
    from {{ this }}
    where not ({{ expression }})
    having count(*) > 0
{%- endmacro %}
