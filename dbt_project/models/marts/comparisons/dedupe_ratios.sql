with

{{ import_ctes([
    'int_capacity_observations',
    'int_storage_policy_rules_by_cluster_size',
]) }},

ratios_computed as (

    select
        -- identifiers
        snapshots.source_file_id as capacity_observation_id,
        {{ testbed_id('snapshots.testbed') }} as testbed_id,

        -- dimensions
        snapshots.testbed,
        snapshots.ftm,
        snapshots.ftt,
        snapshots.architecture,
        snapshots.nodes,
        snapshots.profile,
        snapshots.working_set,
        snapshots.source_kind,
        snapshots.source_kinds,
        snapshots.source_document,
        -- every file the capture was loaded from (JSON and XML of one
        -- capture are one observation); the id above is the one kept
        snapshots.source_file_ids,
        snapshots.source_file_count,

        -- timestamps
        snapshots.captured_at,

        -- facts
        snapshots.logical_used_bytes,
        snapshots.physical_used_bytes,
        snapshots.total_capacity_bytes,
        snapshots.free_capacity_bytes,
        -- one conversion per unit, done here: TB = 10^12 bytes, TiB = 2^40
        -- bytes (vSphere's capacity view prints TiB and labels it "TB")
        snapshots.logical_used_bytes / 1e12 as logical_used_tb,
        snapshots.logical_used_bytes / 1099511627776 as logical_used_tib,
        snapshots.physical_used_bytes / 1e12 as physical_used_tb,
        snapshots.physical_used_bytes / 1099511627776 as physical_used_tib,
        (snapshots.logical_used_bytes - snapshots.physical_used_bytes)
        / 1e12 as saved_tb,
        (snapshots.logical_used_bytes - snapshots.physical_used_bytes)
        / 1099511627776 as saved_tib,
        -- "used before" over "used after" (vSphere's OSA ratio); the
        -- reported ratio only where the bytes are not there
        coalesce(
            cast(snapshots.logical_used_bytes as double)
            / nullif(snapshots.physical_used_bytes, 0),
            snapshots.ratio_reported
        ) as dedupe_compression_ratio,
        snapshots.ratio_reported,
        snapshots.ratio_reported_source,
        -- the policy's rule (seeds/storage_policy_rules.csv); the ESA
        -- RAID-5 layout (2+1 or 4+1) follows the cluster size
        rules.capacity_multiplier,
        dedupe_compression_ratio / rules.capacity_multiplier
            as usable_to_raw_ratio

    from int_capacity_observations as snapshots
    left join int_storage_policy_rules_by_cluster_size as rules
        on {{ storage_policy_rule_of('snapshots') }}

)

select * from ratios_computed
