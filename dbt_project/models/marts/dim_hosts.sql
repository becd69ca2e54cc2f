with

int_result_hosts_measured as (

    select * from {{ ref('int_result_hosts_measured') }}

),

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}

),

hosts_joined_to_testbeds as (

    select
        fct_workload_results.testbed_id,
        fct_workload_results.testbed,
        int_result_hosts_measured.host_name,
        int_result_hosts_measured.host_origin

    from int_result_hosts_measured
    inner join fct_workload_results
        on int_result_hosts_measured.result_id = fct_workload_results.result_id

),

hosts_described as (

    select
        md5(concat_ws('|', testbed_id, host_name)) as host_id,
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
