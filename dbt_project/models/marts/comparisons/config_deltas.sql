{#- Every one-dimension delta of config_delta_pairs, judged as one family of
    tests per testbed (docs/ANALYSES.md, "Many comparisons at once"):
    significant on its Benjamini-Hochberg q-value (config_delta_tests),
    inconclusive when the 95 % interval of its IOPS change spans the
    minimum effect, and always saying which spread the verdict rests on:
    repeated runs on both sides, or only within-run noise. -#}
{%- set min_effect = var('config_delta_min_effect_pct') -%}
{%- set fdr = var('config_delta_fdr') -%}

with

{{ import_ctes(['config_delta_pairs', 'config_delta_tests']) }},

deltas_tested as (

    select
        config_delta_pairs.*,
        config_delta_tests.iops_delta_p_value,
        config_delta_tests.iops_delta_q_value,
        config_delta_tests.family_size,
        100.0 * config_delta_pairs.iops_delta_ci95_low
        / nullif(config_delta_pairs.from_iops, 0) as iops_delta_pct_ci95_low,
        100.0 * config_delta_pairs.iops_delta_ci95_high
        / nullif(config_delta_pairs.from_iops, 0) as iops_delta_pct_ci95_high,
        -- run-to-run variation (VM placement, cache state, resync) is
        -- known only where both sides were repeated
        case
            when not config_delta_pairs.has_spread then null
            when
                config_delta_pairs.from_spread_source = 'across_runs'
                and config_delta_pairs.to_spread_source = 'across_runs'
                then 'across_runs'
            else 'within_run_noise'
        end as significance_basis

    from config_delta_pairs
    left join config_delta_tests
        on
            config_delta_pairs.config_delta_id
            = config_delta_tests.config_delta_id

),

verdicts as (

    select
        *,
        case
            when iops_delta_q_value is null then 'no spread information'
            when
                (
                    iops_delta_pct_ci95_low < {{ min_effect }}
                    and iops_delta_pct_ci95_high > {{ min_effect }}
                )
                or (
                    iops_delta_pct_ci95_low < -{{ min_effect }}
                    and iops_delta_pct_ci95_high > -{{ min_effect }}
                )
                then 'inconclusive'
            when
                iops_delta_pct_ci95_low >= -{{ min_effect }}
                and iops_delta_pct_ci95_high <= {{ min_effect }}
                then 'below the minimum effect'
            when iops_delta_q_value >= {{ fdr }} then 'not significant'
            when significance_basis = 'across_runs'
                then 'significant across runs'
            else 'significant against within-run noise only'
        end as verdict

    from deltas_tested

),

significance_judged as (

    select
        * exclude (has_spread),
        case
            when iops_delta_q_value is null then null
            else iops_delta_q_value < {{ fdr }}
        end as is_significant,
        case
            when not has_spread
                then
                    'no spread information: '
                    || case
                        when from_iops_se is null and to_iops_se is null
                            then
                                'neither side has repeated runs'
                                || ' or an interval series'
                        else
                            case
                                when from_iops_se is null then 'the from'
                                else 'the to'
                            end
                            || ' side has neither repeated runs'
                            || ' nor an interval series'
                    end
            when iops_delta_q_value is null
                then 'no spread information: repeated runs are identical'
            else
                verdict
                || printf(
                    ': IOPS change %+.1f %% [%+.1f, %+.1f] (95 %%), q = %.2g'
                    || ' among %d deltas of the testbed',
                    iops_delta_pct, iops_delta_pct_ci95_low,
                    iops_delta_pct_ci95_high, iops_delta_q_value, family_size
                )
                || case
                    when significance_basis = 'within_run_noise'
                        then
                            '; spread from within-run noise: run-to-run'
                            || ' variation unknown'
                    else ''
                end
        end as significance_note

    from verdicts

)

select * from significance_judged
