{#- One row per fio / Vdbench workload result key: its per-VM outputs
    (files) left out because they never finished (fio job without its final
    report, Vdbench run without its avg_ line), and the HCIBench `-res.txt`
    figures of the same case to cross-check the recomputed sums against
    (NULL when that summary is cut short). -#}
with

{{ import_ctes([
    'int_result_outputs_keyed',
    'int_hcibench_summary_blocks_assigned',
]) }},

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

    -- a summary cut short lacks the blocks (datastores) after the cut: its
    -- sums are no cross-check, and are left NULL rather than compared
    select
        result_group,
        case when not bool_or(is_cut) then sum(iops) end as summary_iops,
        case
            when not bool_or(is_cut) then sum(throughput_mb_s)
        end as summary_throughput_mb_s,
        sum(vms_finished_early) as summary_vms_finished_early

    from int_hcibench_summary_blocks_assigned
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
