{#- One row per workload result x source file it comes from: the run
    explorer's provenance. A result's files are the outputs its sums are made
    of (fct_result_outputs), the file its labels were read with
    (label_source_file_id: the -res.txt summary of a result known only from
    HCIBench), and the other files of its HCIBench test case loaded under
    the same labels (parameter files, configs, resource usage). Each file
    carries its path in full and, when loaded since loads record it, relative
    to the PATH argument of `ingest load` it lay under (load_root), format, parser version and the version the
    tool printed (fio --version, Vdbench's build, HCIBench's release as the
    case layout tells it). -#}
with

{{ import_ctes([
    'fct_workload_results',
    'fct_result_outputs',
    'stg_ingest__source_files',
    'stg_fio__runs',
    'stg_vdbench__outputs',
    'stg_hcibench__cases',
]) }},

output_files as (

    select distinct
        result_id,
        source_file_id,
        'output' as file_role,
        1 as role_rank
    from fct_result_outputs

),

label_files as (

    select
        result_id,
        label_source_file_id as source_file_id,
        'labels' as file_role,
        2 as role_rank
    from fct_workload_results
    where label_source_file_id is not null

),

case_files as (

    -- the other files of the result's HCIBench case, under the same labels
    select
        label_files.result_id,
        case_file.source_file_id,
        'test case' as file_role,
        3 as role_rank
    from label_files
    inner join stg_ingest__source_files as label_file
        on label_files.source_file_id = label_file.source_file_id
    inner join stg_ingest__source_files as case_file
        on
            label_file.hcibench_case = case_file.hcibench_case
            and label_file.labels_json = case_file.labels_json

),

files_unioned as (

    select * from output_files
    union all
    select * from label_files
    union all
    select * from case_files

),

files_ranked as (

    select
        result_id,
        source_file_id,
        file_role,
        row_number() over (
            partition by result_id, source_file_id order by role_rank
        ) as role_position
    from files_unioned

),

tool_versions as (

    select
        source_file_id,
        max(fio_version) as tool_version
    from stg_fio__runs
    group by source_file_id
    union all
    select
        source_file_id,
        max(vdbench_version) as tool_version
    from stg_vdbench__outputs
    group by source_file_id
    union all
    select
        source_file_id,
        'HCIBench ' || max(hcibench_release_hint) as tool_version
    from stg_hcibench__cases
    group by source_file_id

),

tool_versions_per_file as (

    select
        source_file_id,
        max(tool_version) as tool_version
    from tool_versions
    group by source_file_id

),

files_described as (

    select
        -- identifiers
        files_ranked.result_id,
        files_ranked.source_file_id,
        stg_ingest__source_files.sha256,

        -- dimensions
        files_ranked.file_role,
        stg_ingest__source_files.source_path,
        stg_ingest__source_files.load_root,
        stg_ingest__source_files.path_in_root,
        stg_ingest__source_files.source_folder,
        stg_ingest__source_files.source_format,
        stg_ingest__source_files.parser_version,
        tool_versions_per_file.tool_version,
        stg_ingest__source_files.hcibench_case,
        stg_ingest__source_files.result_per,
        stg_ingest__source_files.labels_json,

        -- facts
        stg_ingest__source_files.size_bytes,
        stg_ingest__source_files.row_count,

        -- timestamps
        stg_ingest__source_files.loaded_at

    from files_ranked
    inner join stg_ingest__source_files
        on files_ranked.source_file_id = stg_ingest__source_files.source_file_id
    left join tool_versions_per_file
        on files_ranked.source_file_id = tool_versions_per_file.source_file_id
    where files_ranked.role_position = 1

)

select * from files_described
