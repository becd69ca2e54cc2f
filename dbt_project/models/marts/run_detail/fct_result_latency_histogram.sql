{#- One row per workload result x direction (`read`, `write`, ... and
    `all`) x json+ latency bin: the I/O counts of the result's outputs'
    histograms summed per bin (int_result_latency_histogram). -#}
with

{{ import_ctes(['int_result_latency_histogram']) }},

bins_identified as (

    select
        -- identifiers
        {{ hashed_key(['result_id', 'direction', 'bin_ms']) }}
            as histogram_bin_id,
        result_id,

        -- dimensions
        direction,
        latency_kind,
        bin_ms,

        -- facts
        io_count,
        ios_at_or_below,
        ios_total,
        outputs_with_bins,
        output_count,

        -- metadata
        is_complete

    from int_result_latency_histogram

)

select * from bins_identified
