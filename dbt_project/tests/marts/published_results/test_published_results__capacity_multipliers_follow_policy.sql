-- Every capacity multiplier a source document publishes is the one the
-- marts' `capacity_multiplier` macro gives its policy (Micron Table 7:
-- RAID-1 FTT=1 2, FTT=2 3, RAID-5 1.33, RAID-6 1.5; Samsung ESA RAID-5 1.5).
with

published_results as (

    select * from {{ ref('published_results') }}
    where metric = 'capacity_multiplier'

),

multipliers_compared as (

    select
        figure_id,
        value,
        {{ capacity_multiplier('ftm', 'ftt', 'architecture', 'nodes') }}
            as capacity_multiplier

    from published_results

)

select * from multipliers_compared
where
    capacity_multiplier is null
    or abs(capacity_multiplier - value) > 0.005
