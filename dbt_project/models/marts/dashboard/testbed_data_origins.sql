{#- One row per testbed: where its data comes from. `is_reconstructed` marks
    the reference dataset's testbeds, rebuilt from published figures rather
    than measured: the testbed's name says `reconstructed`, or one of its
    results carries the `data_origin` run label `reconstructed`, `reference`
    or `published` (the reference dataset's run.yaml sets it). The
    dashboard notes such rows on every page. -#}
with

{{ import_ctes(['fct_workload_results']) }},

dim_testbeds as (

    select * from {{ ref('dim_testbeds') }}
    where not is_unknown

),

fct_result_labels as (

    select * from {{ ref('fct_result_labels') }}
    where label_key = 'data_origin'

),

origins_per_testbed as (

    select
        fct_workload_results.testbed,
        min(lower(fct_result_labels.label_value)) as data_origin,
        bool_or(
            lower(fct_result_labels.label_value)
            in ('reconstructed', 'reference', 'published')
        ) as has_reconstructed_result

    from fct_workload_results
    inner join fct_result_labels
        on fct_workload_results.result_id = fct_result_labels.result_id
    group by fct_workload_results.testbed

),

testbeds_classified as (

    select
        -- identifiers
        dim_testbeds.testbed_id,

        -- dimensions
        dim_testbeds.testbed,
        origins_per_testbed.data_origin,
        coalesce(origins_per_testbed.has_reconstructed_result, false)
        or dim_testbeds.testbed ilike '%reconstructed%' as is_reconstructed

    from dim_testbeds
    left join origins_per_testbed
        on dim_testbeds.testbed = origins_per_testbed.testbed

)

select * from testbeds_classified
