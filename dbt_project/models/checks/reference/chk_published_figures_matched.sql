{#- The matching rule: a figure matches the measured rows of its target
    mart, metric and testbed whose labels equal every non-NULL published
    label (a label the mart does not carry is not compared) and whose base
    (`compared_to`) is the figure's when both name one. One row per figure
    with at least one match: how many mart rows (keys), whether the figure
    holds for all of them, and the value to show. A key that holds several
    values (`is_one_of`: the block sizes near a sweep's best) holds when
    one of them does. -#}
with

{{ import_ctes(['int_published_figures', 'chk_published_measured_values']) }},

figures_joined_to_measured as (

    select
        int_published_figures.figure_id,
        int_published_figures.value as published_value,
        chk_published_measured_values.matched_key,
        chk_published_measured_values.measured_value,
        -- the labels the figure pins that the row does not carry: they
        -- were not compared (reason of published_vs_measured)
        list_filter(
            chk_published_measured_values.uncarried_labels,
            label -> list_contains(
                [
                    {%- for label in published_labels() %}
                        case
                            when int_published_figures.{{ label }} is not null
                                then '{{ label }}'
                        end{{ ',' if not loop.last }}
                    {%- endfor %}
                ],
                label
            )
        ) as uncarried_labels,
        coalesce(chk_published_measured_values.is_one_of, false) as is_one_of,
        {{ holds_within(
            'chk_published_measured_values.measured_value',
            'int_published_figures.value',
            'int_published_figures.qualifier',
            'int_published_figures.tolerance',
            'int_published_figures.truncation_unit',
        ) }} as is_within

    from int_published_figures
    inner join chk_published_measured_values
        on
            int_published_figures.target_mart
            = chk_published_measured_values.target_mart
            and int_published_figures.metric
            = chk_published_measured_values.metric
            and int_published_figures.testbed
            = chk_published_measured_values.testbed
            and (
                int_published_figures.compared_to is null
                or chk_published_measured_values.compared_to is null
                or int_published_figures.compared_to
                = chk_published_measured_values.compared_to
            )
            {%- for label in published_labels() %}
                and (
                    int_published_figures.{{ label }} is null
                    or list_contains(
                        chk_published_measured_values.uncarried_labels,
                        '{{ label }}'
                    )
                    or cast(int_published_figures.{{ label }} as varchar)
                    = cast(chk_published_measured_values.{{ label }} as varchar)
                )
            {%- endfor %}

),

keys_judged as (

    -- one row per figure x mart row (key): a key offered once per base
    -- label (a config delta) counts once; a key holding a set of values
    -- holds when one of them does, and shows the one nearest the figure
    select
        figure_id,
        matched_key,
        any_value(published_value) as published_value,
        arg_min(
            measured_value, abs(measured_value - published_value)
        ) as measured_value,
        case
            when bool_or(is_one_of) then bool_or(coalesce(is_within, false))
            -- a matched row without the metric counts against the figure
            else bool_and(coalesce(is_within, false))
        end as is_within,
        any_value(uncarried_labels) as uncarried_labels

    from figures_joined_to_measured
    group by figure_id, matched_key

),

matches_counted as (

    -- several keys match a figure that leaves a label open ("~2.25 ms at
    -- every host count"): it holds when it holds for each of them, and
    -- the value shown is the one furthest from the figure
    select
        figure_id,
        count(*) as matched_count,
        min(matched_key) as matched_key,
        arg_max(
            measured_value, abs(measured_value - published_value)
        ) as furthest_value,
        min(measured_value) as measured_value,
        bool_and(is_within) as is_within,
        count(*) filter (where is_within) as within_count,
        any_value(uncarried_labels) as uncarried_labels

    from keys_judged
    group by figure_id

)

select * from matches_counted
