{#- One row per host sample and metric from the capture tools
    (int_host_samples_unioned) with the testbed of the file it came from:
    the one place a capture sample gets its testbed, for the host CPU
    facts and for the samples inside each result's run window. -#}
with

{{ import_ctes(['int_host_samples_unioned', 'stg_ingest__source_files']) }},

samples_labelled as (

    select
        -- identifiers (unique per metric)
        {{ hashed_key([
            'int_host_samples_unioned.source_file_id',
            'int_host_samples_unioned.host_name',
            'int_host_samples_unioned.sampled_at',
        ]) }} as host_sample_id,
        {{ testbed_id('stg_ingest__source_files.testbed') }} as testbed_id,
        int_host_samples_unioned.source_file_id,

        -- dimensions
        stg_ingest__source_files.testbed,
        int_host_samples_unioned.host_name,
        int_host_samples_unioned.source_tool,
        int_host_samples_unioned.metric,

        -- timestamps
        int_host_samples_unioned.sampled_at,

        -- facts
        int_host_samples_unioned.value

    from int_host_samples_unioned
    inner join stg_ingest__source_files
        on
            int_host_samples_unioned.source_file_id
            = stg_ingest__source_files.source_file_id

)

select * from samples_labelled
