with

{{ import_ctes(['int_workload_results_unioned', 'stg_ingest__source_files']) }},

results_joined_to_labels as (

    select
        int_workload_results_unioned.* exclude (
            read_pct, random_pct, block_size_bytes, outstanding_io
        ),
        stg_ingest__source_files.testbed,
        stg_ingest__source_files.nodes,
        stg_ingest__source_files.vsan_version,
        stg_ingest__source_files.architecture,
        stg_ingest__source_files.profile,
        stg_ingest__source_files.profile_order,
        stg_ingest__source_files.ftm,
        stg_ingest__source_files.ftt,
        stg_ingest__source_files.is_checksum,
        stg_ingest__source_files.is_dedupe,
        stg_ingest__source_files.is_compression,
        stg_ingest__source_files.stripe_width,
        stg_ingest__source_files.osr_pct,
        stg_ingest__source_files.disk_groups,
        stg_ingest__source_files.transport,
        stg_ingest__source_files.working_set,
        stg_ingest__source_files.storage,
        stg_ingest__source_files.labels_json,
        -- run.yaml `workload` overrides what the tool output says
        coalesce(
            stg_ingest__source_files.label_read_pct,
            int_workload_results_unioned.read_pct
        ) as read_pct,
        coalesce(
            stg_ingest__source_files.label_random_pct,
            int_workload_results_unioned.random_pct
        ) as random_pct,
        coalesce(
            stg_ingest__source_files.label_block_size_bytes,
            int_workload_results_unioned.block_size_bytes
        ) as block_size_bytes,
        coalesce(
            stg_ingest__source_files.label_outstanding_io,
            int_workload_results_unioned.outstanding_io
        ) as outstanding_io

    from int_workload_results_unioned
    left join stg_ingest__source_files
        on
            int_workload_results_unioned.label_source_file_id
            = stg_ingest__source_files.source_file_id

),

results_keyed as (

    -- the keys of dim_testbeds and dim_workloads, from the labelled values
    select
        *,
        {{ testbed_id('testbed') }} as testbed_id,
        {{ workload_id(
            'read_pct', 'random_pct', 'block_size_bytes', 'outstanding_io'
        ) }} as workload_id

    from results_joined_to_labels

)

select * from results_keyed
