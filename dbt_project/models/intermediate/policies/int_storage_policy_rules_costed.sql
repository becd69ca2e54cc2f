{#- One row per storage-policy rule (seeds/storage_policy_rules.csv) with
    what it costs: capacity overhead, redundancy and raw capacity against
    RAID-1 FTT=1 of the same architecture (the policy every reference
    architecture compares with), and back-end I/Os per front-end write. -#}
with

{{ import_ctes(['storage_policy_rules']) }},

raid1_ftt1 as (

    select
        architecture,
        capacity_multiplier
    from storage_policy_rules
    where ftm = 'RAID-1' and ftt = 1

),

rules_costed as (

    select
        storage_policy_rules.*,
        100.0 * (storage_policy_rules.capacity_multiplier - 1)
            as capacity_overhead_pct,
        storage_policy_rules.capacity_multiplier - 1
            as redundancy_bytes_per_data_byte,
        -- "RAID-5 reduces the replica footprint by 50 %": the redundancy
        -- bytes (replicas or parity) against RAID-1 FTT=1's one replica
        {{ pct_change(
            '(storage_policy_rules.capacity_multiplier - 1)',
            '(raid1_ftt1.capacity_multiplier - 1)'
        ) }} as replica_capacity_delta_pct,
        {{ pct_change(
            'storage_policy_rules.capacity_multiplier',
            'raid1_ftt1.capacity_multiplier'
        ) }} as capacity_vs_raid1_ftt1_pct,
        storage_policy_rules.backend_writes_per_frontend_write
        + storage_policy_rules.backend_reads_per_frontend_write
            as backend_ios_per_frontend_write,
        -- '8.0' -> 8.0, so that '6.7' and '8.0u2' compare as versions
        try_cast(
            regexp_extract(
                storage_policy_rules.min_vsan_version, '^[0-9]+\.[0-9]+'
            ) as double
        ) as min_vsan_version_number

    from storage_policy_rules
    left join raid1_ftt1
        on storage_policy_rules.architecture = raid1_ftt1.architecture

)

select * from rules_costed
