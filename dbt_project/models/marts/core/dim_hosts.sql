with

{{ import_ctes([
    'int_result_hosts_measured',
    'int_workload_results_labelled',
]) }},

hosts_joined_to_testbeds as (

    select
        int_workload_results_labelled.testbed_id,
        int_workload_results_labelled.testbed,
        int_result_hosts_measured.host_name,
        int_result_hosts_measured.host_origin

    from int_result_hosts_measured
    inner join int_workload_results_labelled
        on
            int_result_hosts_measured.result_id
            = int_workload_results_labelled.result_id

),

hosts_described as (

    select
        {{ host_id('testbed_id', 'host_name') }} as host_id,
        testbed_id,
        any_value(testbed) as testbed,
        host_name,
        string_agg(distinct host_origin, ',' order by host_origin)
            as host_origins,
        false as is_unknown

    from hosts_joined_to_testbeds
    group by testbed_id, host_name

),

unknown_member as (

    select
        '-1' as host_id,
        '-1' as testbed_id,
        'unknown' as testbed,
        'unknown' as host_name,
        cast(null as varchar) as host_origins,
        true as is_unknown

),

hosts_with_unknown as (

    select * from hosts_described
    union all
    select * from unknown_member

)

select * from hosts_with_unknown
