{#- Every key of the warehouse is built here, once: a key written out twice
    drifts, and then two models stop joining (result_id, fio_job_id and
    testbed_id join staging, intermediate models and every mart). -#}

{% macro hashed_key(parts) -%}
    {#- A surrogate key: md5 of the parts joined by '|'. concat_ws skips
        NULL parts, which the keys built so far rely on (a NULL host name
        is the same output as no host name). -#}
    md5(concat_ws('|', {{ parts | join(', ') }}))
{%- endmacro %}

{% macro fio_job_id(source_file_id, run_index, job_index) -%}
    {#- One fio job entry of one run of one file. -#}
    {{ hashed_key([source_file_id, run_index, job_index]) }}
{%- endmacro %}

{% macro testbed_id(testbed) -%}
    {#- '-1' is the unknown member of dim_testbeds (results without a
        testbed label). -#}
    case when {{ testbed }} is null then '-1' else md5({{ testbed }}) end
{%- endmacro %}

{% macro host_id(testbed_id, host_name) -%}
    {{ hashed_key([testbed_id, host_name]) }}
{%- endmacro %}

{% macro case_folder(source_files) -%}
    {#- The HCIBench test case a file belongs to (its case folder), else the
        folder it was loaded from. -#}
    coalesce({{ source_files }}.hcibench_case, {{ source_files }}.source_folder)
{%- endmacro %}

{% macro result_group(source_files) -%}
    {#- CONTRACT.md section 3: with result_per = folder every output of one
        test in a folder, or HCIBench test case, forms one result; with
        result_per = file each file does. `source_files` is the alias of a
        relation with stg_ingest__source_files' columns. -#}
    case
        when {{ source_files }}.result_per = 'folder'
            then {{ case_folder(source_files) }}
        else {{ source_files }}.source_path
    end
{%- endmacro %}

{% macro result_key(source_tool, result_group, parts) -%}
    {#- `<tool>::<result group>::<what identifies the test in the group>`,
        readable on purpose (marts show it); result_id is its md5. -#}
    {%- set pieces = ["'" ~ source_tool ~ "::'", result_group] -%}
    {%- for part in parts -%}
        {%- do pieces.extend(["'::'", part]) -%}
    {%- endfor %}
    concat({{ pieces | join(', ') }})
{%- endmacro %}

{% macro result_id(result_key) -%}
    md5({{ result_key }})
{%- endmacro %}

{% macro workload_id(read_pct, random_pct, block_size_bytes, outstanding_io) -%}
    {#- '-1' (dim_workloads' unknown member) when nothing of the workload is
        known; an unknown part reads '?' so that partial workloads differ. -#}
    {%- set parts = [read_pct, random_pct, block_size_bytes, outstanding_io] -%}
    {%- set texts = [] -%}
    {%- for part in parts -%}
        {%- do texts.append("coalesce(cast(" ~ part ~ " as varchar), '?')") -%}
    {%- endfor -%}
    case
        when {{ parts | join(' is null and ') }} is null then '-1'
        else {{ hashed_key(texts) }}
    end
{%- endmacro %}

{% macro fio_job_key_columns() -%}
    {#- The key columns every raw.fio_* table below the job level is staged
        with (from a `source` CTE of that table): the job it belongs to, and
        the file / run / job position fio printed it at. -#}
    {{ fio_job_id('_source_file_id', 'run_index', 'job_index') }} as fio_job_id,
        _source_file_id as source_file_id,
        run_index,
        job_index
{%- endmacro %}
