{#- One row per workload result x label that VARIES within the result's
    testbed: what a chart must show as an axis, a facet, a colour or a
    selector, never average over (issue 18). Labels are every run label
    (fct_result_labels: typed and free-form) plus the result's effective
    workload (read mix, random share, block size, outstanding I/O, VM
    count), because run.yaml does not always say them. Left out:
    bookkeeping keys that never describe the system under test, the nested
    `workload` map (its effective values are here), the policy labels of a
    result that has a `profile` (the profile names them: one colour, not
    seven selectors), and working_set_gb / _pct where `working_set` says
    the same thing. A label a result does not carry is `(none)` when other
    results of the testbed carry it: "not said" is a difference too. -#}
with

{{ import_ctes(['fct_workload_results', 'fct_result_labels']) }},

workload_values as (

    -- the effective workload, whatever run.yaml said (sizes as 4K ... 1M)
    unpivot (
        select
            result_id,
            cast(read_pct as varchar) as read_pct,
            cast(random_pct as varchar) as random_pct,
            {{ block_size_text('block_size_bytes') }} as block_size,
            cast(outstanding_io as varchar) as outstanding_io,
            cast(vm_count as varchar) as vm_count
        from fct_workload_results
    ) on read_pct, random_pct, block_size, outstanding_io, vm_count
    into name label_key value label_value

),

run_labels as (

    select
        fct_result_labels.result_id,
        fct_result_labels.label_key,
        fct_result_labels.label_value
    from fct_result_labels
    inner join fct_workload_results
        on fct_result_labels.result_id = fct_workload_results.result_id
    where
        fct_result_labels.label_key not in (
            'testbed', 'data_origin', 'result_per', 'profile_order',
            'captured_at', 'workload', 'block_size_bytes',
            'read_pct', 'random_pct', 'block_size', 'outstanding_io',
            'vm_count'
        )
        and not (
            fct_workload_results.profile is not null
            and fct_result_labels.label_key in (
                'ftm', 'ftt', 'checksum', 'dedupe', 'compression',
                'stripe_width', 'osr_pct'
            )
        )
        and not (
            fct_workload_results.working_set is not null
            and fct_result_labels.label_key in (
                'working_set_gb', 'working_set_pct'
            )
        )

),

all_labels as (

    select * from run_labels
    union all
    select * from workload_values

),

results_per_testbed as (

    select
        testbed_id,
        count(*) as result_count
    from fct_workload_results
    group by testbed_id

),

varying_keys as (

    select
        fct_workload_results.testbed_id,
        all_labels.label_key
    from all_labels
    inner join fct_workload_results
        on all_labels.result_id = fct_workload_results.result_id
    inner join results_per_testbed
        on fct_workload_results.testbed_id = results_per_testbed.testbed_id
    group by
        fct_workload_results.testbed_id,
        all_labels.label_key,
        results_per_testbed.result_count
    having
        count(distinct all_labels.label_value) > 1
        or count(all_labels.label_value) < results_per_testbed.result_count

),

result_varying as (

    select
        -- identifiers
        fct_workload_results.result_id,
        fct_workload_results.testbed_id,

        -- dimensions
        fct_workload_results.testbed,
        varying_keys.label_key,
        coalesce(all_labels.label_value, '(none)') as label_value

    from fct_workload_results
    inner join varying_keys
        on fct_workload_results.testbed_id = varying_keys.testbed_id
    left join all_labels
        on
            fct_workload_results.result_id = all_labels.result_id
            and varying_keys.label_key = all_labels.label_key

)

select * from result_varying
