{#- The values of per_node_iops_vs_targets a published figure can be
    compared with: one row per result x ReadyNode profile, with all the
    result's labels; `compared_to` is the profile whose target the figure
    names (Micron: "AF-6 ... 50K IOPS" per node). -#}

with

{{ import_ctes(['per_node_iops_vs_targets', 'int_published_result_labels']) }},

targets_labelled as (

    select
        int_published_result_labels.*,
        'per_node_iops_vs_targets' as target_mart,
        concat_ws(
            '|',
            per_node_iops_vs_targets.result_id,
            per_node_iops_vs_targets.readynode_profile
        ) as matched_key,
        per_node_iops_vs_targets.readynode_profile as compared_to,
        {{ labels_not_in(published_labels()) }} as uncarried_labels,
        'iops_per_node_vs_target_pct' as metric,
        per_node_iops_vs_targets.iops_per_node_vs_target_pct as measured_value

    from per_node_iops_vs_targets
    inner join int_published_result_labels
        on
            per_node_iops_vs_targets.result_id
            = int_published_result_labels.labelled_result_id

)

select * from targets_labelled
