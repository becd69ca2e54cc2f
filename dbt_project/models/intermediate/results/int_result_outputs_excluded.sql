{#- One row per fio / Vdbench workload result key: its per-VM outputs
    (files) left out because they never finished (fio job without its final
    report, Vdbench run without its avg_ line), and the HCIBench `-res.txt`
    figures of the same case to cross-check the recomputed sums against. -#}
with

int_result_outputs_keyed as (

    select * from {{ ref('int_result_outputs_keyed') }}

),

stg_ingest__source_files as (

    select * from {{ ref('stg_ingest__source_files') }}

),

stg_hcibench__summary_blocks as (

    select * from {{ ref('stg_hcibench__summary_blocks') }}

),

outputs_finished as (

    select
        result_id,
        result_key,
        result_group,
        source_file_id,
        bool_or(is_finished) as is_finished

    from int_result_outputs_keyed
    group by all

),

outputs_excluded_counted as (

    -- an output (file) is excluded when none of its jobs / runs of this
    -- result finished
    select
        result_id,
        result_key,
        result_group,
        count(*) filter (where not is_finished) as vms_excluded

    from outputs_finished
    group by all

),

summaries_per_case as (

    select
        {{ case_folder('stg_ingest__source_files') }} as result_group,
        sum(stg_hcibench__summary_blocks.iops) as summary_iops,
        sum(stg_hcibench__summary_blocks.throughput_mb_s)
            as summary_throughput_mb_s,
        sum(stg_hcibench__summary_blocks.vms_finished_early)
            as summary_vms_finished_early

    from stg_hcibench__summary_blocks
    inner join stg_ingest__source_files
        on
            stg_hcibench__summary_blocks.source_file_id
            = stg_ingest__source_files.source_file_id
    group by all

),

outputs_joined_to_summaries as (

    select
        outputs_excluded_counted.result_id,
        outputs_excluded_counted.result_key,
        outputs_excluded_counted.vms_excluded,
        summaries_per_case.summary_iops,
        summaries_per_case.summary_throughput_mb_s,
        summaries_per_case.summary_vms_finished_early

    from outputs_excluded_counted
    left join summaries_per_case
        on
            outputs_excluded_counted.result_group
            = summaries_per_case.result_group

)

select * from outputs_joined_to_summaries
