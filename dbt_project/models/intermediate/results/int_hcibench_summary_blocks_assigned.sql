{#- One row per block of an HCIBench `-res.txt` summary (datastore x fio
    job / Vdbench run definition) with its case, the result it counts towards
    and whether the summary was cut short there, for the summary-only results
    and the cross-check of per-VM results against the summary. -#}
with

{{ import_ctes([
    'stg_hcibench__summary_blocks',
    'stg_hcibench__cases',
    'stg_ingest__source_files',
]) }},

blocks_assigned as (

    select
        stg_hcibench__summary_blocks.*,
        stg_hcibench__cases.started_at,
        stg_hcibench__cases.read_pct,
        stg_hcibench__cases.random_pct,
        stg_hcibench__cases.block_size_bytes,
        stg_hcibench__cases.threads_per_disk,
        stg_hcibench__cases.cut_line,
        -- the file ends inside a line (the case says where), or this block
        -- is partial for no other reason than a cut (no VM left out: its
        -- values are missing)
        coalesce(stg_hcibench__cases.is_partial, false)
        or (
            stg_hcibench__summary_blocks.is_partial
            and coalesce(stg_hcibench__summary_blocks.vms_finished_early, 0) = 0
        ) as is_cut,
        stg_ingest__source_files.source_path,
        stg_ingest__source_files.loaded_at,
        {{ case_folder('stg_ingest__source_files') }} as result_group,
        {{ result_key('hcibench', 'result_group', [
            "coalesce(stg_hcibench__summary_blocks.job_name,"
            ~ " stg_hcibench__summary_blocks.rd_name, '')"
        ]) }} as result_key,
        {{ result_id('result_key') }} as result_id

    from stg_hcibench__summary_blocks
    inner join stg_ingest__source_files
        on
            stg_hcibench__summary_blocks.source_file_id
            = stg_ingest__source_files.source_file_id
    left join stg_hcibench__cases
        on
            stg_hcibench__summary_blocks.source_file_id
            = stg_hcibench__cases.source_file_id

)

select * from blocks_assigned
