{#- Every published figure against what the warehouse measured (grain: one
    row per row of marts.published_results): the figure with its tolerance
    (int_published_figures), the marts' rows it matches
    (chk_published_figures_matched: labels equal on every non-NULL
    published label; a label the target mart does not carry is not
    compared and is named in `reason`), a status, and a documented
    exception where there is one. -#}
with

{{ import_ctes([
    'int_published_figures',
    'chk_published_figures_matched',
    'reference_exceptions',
]) }},

figures_compared as (

    select
        figures.*,
        coalesce(matches.matched_count, 0) as matched_count,
        case
            when matches.matched_count = 1 then matches.matched_key
        end as matched_result_id,
        case
            when matches.matched_count = 1 then matches.measured_value
            when matches.is_within then matches.furthest_value
        end as measured_value,
        matches.is_within,
        matches.within_count,
        matches.uncarried_labels

    from int_published_figures as figures
    left join chk_published_figures_matched as matches
        on figures.figure_id = matches.figure_id

),

figures_classified as (

    select
        figures_compared.*,
        case
            when figures_compared.target_mart is null then 'not_expressible'
            when figures_compared.matched_count = 0 then 'unmatched'
            when
                figures_compared.matched_count > 1
                and not figures_compared.is_within
                then 'ambiguous'
            when figures_compared.measured_value is null then 'unmatched'
            when figures_compared.is_within then 'match'
            else 'mismatch'
        end as status,
        reference_exceptions.kind as exception_kind,
        reference_exceptions.reason as exception_reason

    from figures_compared
    left join reference_exceptions
        on figures_compared.figure_id = reference_exceptions.figure_id

),

reasons_written as (

    select
        -- identifiers
        figure_id,
        matched_result_id,

        -- dimensions
        source_document,
        table_or_figure,
        testbed,
        metric,
        unit,
        qualifier,
        compared_to,
        target_mart,
        status,
        exception_kind,

        -- facts
        value as published_value,
        value_as_printed,
        -- a capacity printed in "TB": what that unit really is, and the
        -- published and measured values in both units (macro
        -- printed_capacity_units; NULL for other metrics)
        {{ printed_capacity_unit('metric', 'unit') }} as actual_unit,
        {{ printed_capacity_unit('metric', 'meaning') }} as unit_meaning,
        value * {{ printed_capacity_unit('metric', 'bytes') }} / 1e12
            as published_tb,
        value * {{ printed_capacity_unit('metric', 'bytes') }}
        / 1099511627776 as published_tib,
        measured_value * {{ printed_capacity_unit('metric', 'bytes') }}
        / 1e12 as measured_tb,
        measured_value * {{ printed_capacity_unit('metric', 'bytes') }}
        / 1099511627776 as measured_tib,
        tolerance,
        truncation_unit,
        measured_value,
        measured_value - value as difference,
        matched_count,

        -- metadata
        case status
            when 'not_expressible'
                then concat('no mart computes metric ', metric)
            when 'unmatched'
                then
                    case
                        when matched_count = 1
                            then
                                concat(
                                    'the matched ',
                                    target_mart,
                                    ' row has no ',
                                    metric
                                )
                        else
                            concat(
                                'no ', target_mart, ' row of testbed ', testbed,
                                ' with these labels'
                            )
                    end
            when 'ambiguous'
                then
                    concat(
                        matched_count, ' ', target_mart,
                        ' rows carry these labels and the figure holds for ',
                        within_count, ' of them: add a label to tell',
                        ' them apart'
                    )
            else
                concat(
                    case
                        when matched_count > 1
                            then
                                concat(
                                    'holds for all ', matched_count,
                                    ' rows with these labels, furthest: '
                                )
                        else ''
                    end,
                    'measured ', round(measured_value, 4), ' vs published ',
                    value, ' (', qualifier, ', tolerance ',
                    -- approx allows 10 % of the value (figure_holds): say the
                    -- tolerance applied, not the printed precision alone
                    case
                        when qualifier = 'approx'
                            then
                                concat(
                                    greatest(tolerance, 0.1 * abs(value)),
                                    ' = the larger of ', tolerance,
                                    ' and 10 % of the value'
                                )
                        else cast(tolerance as varchar)
                    end,
                    case
                        when qualifier = 'exact' and truncation_unit is not null
                            then
                                concat(
                                    ', or truncated: up to ',
                                    truncation_unit, ' above'
                                )
                        else ''
                    end,
                    ')',
                    case
                        when len(uncarried_labels) > 0
                            then
                                concat(
                                    '; not compared (', target_mart,
                                    ' rows do not carry them): ',
                                    array_to_string(uncarried_labels, ', ')
                                )
                        else ''
                    end
                )
        end as reason,
        exception_reason

    from figures_classified

)

select * from reasons_written
