{#- One row per storage-policy rule: what each policy costs wherever it is
    valid (a policy property, no testbed): Micron Table 7's "additional
    storage by option" and the documents' overhead figures. -#}
with

{{ import_ctes(['int_storage_policy_rules_costed']) }},

costs as (

    select
        -- identifiers
        policy_rule_id,

        -- dimensions
        architecture,
        ftm,
        ftt,
        layout,
        cluster_nodes_min,
        cluster_nodes_max,
        write_path,

        -- facts
        data_fragments,
        redundancy_fragments,
        copies,
        min_hosts,
        min_vsan_version,
        capacity_multiplier,
        capacity_overhead_pct,
        redundancy_bytes_per_data_byte,
        replica_capacity_delta_pct,
        capacity_vs_raid1_ftt1_pct,
        backend_writes_per_frontend_write,
        backend_reads_per_frontend_write,
        backend_ios_per_frontend_write,

        -- metadata
        source,
        note

    from int_storage_policy_rules_costed

)

select * from costs
