-- usable_to_raw_ratio = dedupe_compression_ratio / capacity_multiplier, as
-- dedupe_ratios computes it: Micron Appendix A 8.21 / 1.33 = 6.17 (capacity
-- test) and 2.56 / 1.33 = 1.92 (cache test), to the printed two decimals.
with

usable_to_raw_ratios as (

    select * from {{ ref('published_results') }}
    where metric = 'usable_to_raw_ratio'

),

dedupe_compression_ratios as (

    select * from {{ ref('published_results') }}
    where metric = 'dedupe_compression_ratio'

),

ratios_recomputed as (

    select
        usable_to_raw_ratios.figure_id,
        usable_to_raw_ratios.value,
        round(
            dedupe_compression_ratios.value
            / {{ capacity_multiplier(
                'usable_to_raw_ratios.ftm',
                'usable_to_raw_ratios.ftt',
                'usable_to_raw_ratios.architecture'
            ) }},
            2
        ) as usable_to_raw_ratio

    from usable_to_raw_ratios
    left join dedupe_compression_ratios
        on
            usable_to_raw_ratios.source_document
            = dedupe_compression_ratios.source_document
            and usable_to_raw_ratios.testbed
            = dedupe_compression_ratios.testbed
            and usable_to_raw_ratios.working_set
            is not distinct from dedupe_compression_ratios.working_set
            and usable_to_raw_ratios.ftm = dedupe_compression_ratios.ftm
            and usable_to_raw_ratios.ftt = dedupe_compression_ratios.ftt

)

select * from ratios_recomputed
where
    usable_to_raw_ratio is null
    or abs(usable_to_raw_ratio - value) > 0.005
