{% materialization table, adapter="duckdb",
    supported_languages=['sql', 'python'] -%}
    {#- dbt-duckdb's table materialization, replaced in one transaction instead
        of built beside and swapped in. Why: a table node's own Python work,
        under the GIL, was the bottleneck of `ingest build` (py-spy, one-file
        build: 3.5 of 11.1 s of dbt's GIL time in 52 table materializations).
        The stock one builds `<name>__dbt_tmp`, renames the old table to
        `<name>__dbt_backup`, renames the new one in and drops the backup: two
        renames, two drops and about twenty macro calls (indexes, foreign-key
        dependents, grants, docs) that this project never uses. Here, inside
        the model's transaction: drop the old relation, create the new one, run
        the post-hooks (enforce_table_constraints), commit. A failure rolls it
        all back, so the previous table stays, as with the stock swap. DuckDB
        binds views when they are queried, so the views reading the table are
        unaffected, as by a rename. Seeds, views and incremental models keep
        dbt-duckdb's own materializations. A Python model is written beside
        and renamed in, still in one transaction: its job creating the table
        right after the drop failed ("Catalog write-write conflict"). -#}
    {%- set language = model['language'] -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set unused = [
        'grants', 'indexes', 'partitioned_by', 'sorted_by', 'persist_docs'
    ] -%}
    {%- for key in unused if config.get(key) -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ " sets " ~ key ~ ", which this project's table"
            ~ " materialization (macros/materializations/table.sql) does not apply") }}
    {%- endfor -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    -- `BEGIN` happens here:
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {%- set built = target_relation if language == 'sql'
        else make_intermediate_relation(target_relation) -%}
    {% if language != 'sql' %}
        {{ drop_relation_if_exists(load_cached_relation(built)) }}
    {% endif %}
    {% if existing_relation is not none and language == 'sql' %}
        {{ _drop_for_replace(existing_relation) }}
    {% endif %}
    {% call statement('main', language=language) -%}
        {{- create_table_as(False, built, compiled_code, language) }}
    {%- endcall %}
    {% if built != target_relation %}
        {% if existing_relation is not none %}
            {{ _drop_for_replace(existing_relation) }}
        {% endif %}
        {{ adapter.rename_relation(built, target_relation) }}
    {% endif %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    -- `COMMIT` happens here
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro _drop_for_replace(relation) -%}
    {%- call statement('drop_existing') -%}
        drop {{ relation.type }} {{ relation }}
    {%- endcall -%}
    {%- do adapter.cache_dropped(relation) -%}
{%- endmacro %}
