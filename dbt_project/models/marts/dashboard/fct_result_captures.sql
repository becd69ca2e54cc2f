{#- One row per workload result x host capture file with samples on the
    result's testbed inside its run window: which captures the result's
    host CPU comes from (`is_attached`) and which were left out because
    their labels contradict the result's, with the reason. The run
    explorer's "Host captures" section. -#}
with

{{ import_ctes(['int_result_captures_matched']) }},

captures_listed as (

    select
        -- identifiers
        result_id,
        source_file_id,

        -- dimensions
        source_path,
        source_tool,
        host_names,
        is_attached,
        left_out_reason,

        -- timestamps
        first_sampled_at,
        last_sampled_at,

        -- facts
        window_sample_count

    from int_result_captures_matched

)

select * from captures_listed
