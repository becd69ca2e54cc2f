{#- One row per workload result: the back-end I/O its front-end I/O causes
    under the result's storage policy (seeds/storage_policy_rules.csv).
    A small random front-end write becomes `backend_writes_per_frontend_
    write` back-end writes (RAID-1: one per copy; OSA RAID-5/6: 2/3 writes
    after 2/3 reads of old data and parity; ESA: the mirrored log writes)
    and a front-end read one back-end read. NULL, with the reason, where
    the policy is not labelled, cannot be resolved or cannot exist on the
    result's cluster. -#}
with

{{ import_ctes([
    'fct_workload_results',
    'int_storage_policy_rules_by_cluster_size',
]) }},

results_joined_to_rules as (

    select
        fct_workload_results.*,
        rules.policy_rule_id,
        rules.layout,
        rules.write_path,
        rules.min_hosts,
        rules.is_valid_on_cluster,
        rules.backend_writes_per_frontend_write,
        rules.backend_reads_per_frontend_write,
        case
            when
                fct_workload_results.ftm is null
                or fct_workload_results.ftt is null
                then 'no ftm/ftt label: the storage policy is not known'
            when
                rules.policy_rule_id is null
                and fct_workload_results.nodes is null
                then
                    'cluster size unknown: the '
                    || coalesce(fct_workload_results.architecture, 'OSA')
                    || ' ' || fct_workload_results.ftm
                    || ' layout depends on it'
            when rules.policy_rule_id is null
                then
                    'no storage-policy rule for '
                    || coalesce(fct_workload_results.architecture, 'OSA')
                    || ' ' || fct_workload_results.ftm || ' FTT='
                    || fct_workload_results.ftt
            when not rules.is_valid_on_cluster
                then
                    fct_workload_results.ftm || ' FTT='
                    || fct_workload_results.ftt || ' needs ' || rules.min_hosts
                    || ' hosts, the cluster has ' || fct_workload_results.nodes
            when fct_workload_results.write_iops is null
                then 'no front-end write IOPS'
        end as backend_io_null_reason

    from fct_workload_results
    left join int_storage_policy_rules_by_cluster_size as rules
        on {{ storage_policy_rule_of('fct_workload_results') }}

),

backend_io_estimated as (

    select
        -- identifiers
        result_id,
        testbed_id,
        policy_rule_id,

        -- dimensions
        testbed,
        nodes,
        vsan_version,
        architecture,
        ftm,
        ftt,
        layout,
        write_path,
        profile,
        working_set,
        vm_count,
        read_pct,
        random_pct,
        block_size_bytes,
        outstanding_io,
        source_tool,

        -- facts
        read_iops as frontend_read_iops,
        write_iops as frontend_write_iops,
        backend_writes_per_frontend_write,
        backend_reads_per_frontend_write,
        case
            when backend_io_null_reason is null
                then write_iops * backend_writes_per_frontend_write
        end as backend_write_iops,
        case
            when backend_io_null_reason is null
                then
                    read_iops
                    + write_iops * backend_reads_per_frontend_write
        end as backend_read_iops,
        case
            when backend_io_null_reason is null
                then
                    read_iops
                    + write_iops
                    * (
                        backend_writes_per_frontend_write
                        + backend_reads_per_frontend_write
                    )
        end as backend_total_iops,

        -- metadata
        backend_io_null_reason

    from results_joined_to_rules

)

select * from backend_io_estimated
