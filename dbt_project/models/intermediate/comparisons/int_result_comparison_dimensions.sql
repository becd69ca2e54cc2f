{#- One row per workload result x comparison dimension: the dimension's
    value (all its counted labels, as one text), a sort value for ordered
    axes, and two signatures. `configuration_signature` hashes the testbed
    and every counted dimension: results that share it are repeats of one
    configuration. `signature_without_dimension` leaves this dimension out:
    two results differ in exactly this one dimension iff they share it and
    their `dimension_value` differs (a dimension known on one side only is
    not a difference that can be named: that result has no row for it, so
    the pair shares no signature). -#}

with

{{ import_ctes(['int_workload_results_completed']) }},

int_result_comparison_labels as (

    select * from {{ ref('int_result_comparison_labels') }}
    where is_counted

),

dimensions_valued as (

    -- a dimension of one label shows its value; one of several labels
    -- (a profile with its policy labels, working_set with working_set_gb)
    -- shows `label=value` pairs, the dimension's own label first
    select
        result_id,
        testbed_id,
        dimension,
        string_agg(
            case
                when label = dimension then value_text
                else label || '=' || value_text
            end,
            '; '
            order by label != dimension, label
        ) as dimension_value,
        count(*) as label_count,
        max(value_text) filter (where label = dimension) as primary_value,
        max(value_number) filter (where label = 'working_set_gb')
            as working_set_gb,
        max(value_number) filter (where label = 'working_set_pct')
            as working_set_pct,
        max(value_number) as value_number

    from int_result_comparison_labels
    group by result_id, testbed_id, dimension

),

dimensions_sorted as (

    -- the order of an axis: numbers by value; the working set by GB, else
    -- percent, else cache before capacity; a profile by its position in
    -- the result's profile_order
    select
        dimensions_valued.*,
        case
            when dimensions_valued.dimension = 'working_set'
                then
                    coalesce(
                        dimensions_valued.working_set_gb,
                        dimensions_valued.working_set_pct,
                        case dimensions_valued.primary_value
                            when 'cache' then 0
                            when 'capacity' then 1
                        end
                    )
            when dimensions_valued.dimension = 'profile'
                then
                    list_position(
                        int_workload_results_completed.profile_order,
                        dimensions_valued.primary_value
                    )
            when dimensions_valued.label_count = 1
                then dimensions_valued.value_number
        end as sort_value

    from dimensions_valued
    inner join int_workload_results_completed
        on
            dimensions_valued.result_id
            = int_workload_results_completed.result_id

),

results_listed as (

    -- every counted dimension of a result, in one canonical order
    select
        result_id,
        testbed_id,
        list(
            struct_pack(
                dimension := dimension, dimension_value := dimension_value
            )
            order by dimension
        ) as dimensions

    from dimensions_valued
    group by result_id, testbed_id

),

signatures_computed as (

    select
        -- identifiers
        dimensions_sorted.result_id,
        dimensions_sorted.testbed_id,

        -- dimensions
        dimensions_sorted.dimension,
        dimensions_sorted.dimension_value,
        dimensions_sorted.primary_value,
        dimensions_sorted.label_count,
        dimensions_sorted.sort_value,
        md5(
            dimensions_sorted.testbed_id
            || to_json(results_listed.dimensions)
        ) as configuration_signature,
        md5(
            dimensions_sorted.testbed_id
            || to_json(
                list_filter(
                    results_listed.dimensions,
                    other -> other.dimension != dimensions_sorted.dimension
                )
            )
        ) as signature_without_dimension

    from dimensions_sorted
    inner join results_listed
        on dimensions_sorted.result_id = results_listed.result_id

)

select * from signatures_computed
