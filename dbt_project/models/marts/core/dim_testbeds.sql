with

int_workload_results_labelled as (

    select * from {{ ref('int_workload_results_labelled') }}
    where testbed is not null

),

int_capacity_snapshots_labelled as (

    select * from {{ ref('int_capacity_snapshots_labelled') }}
    where testbed is not null

),

stg_ingest__source_files as (

    -- every labelled testbed, also those with only host captures or
    -- capacity snapshots and no workload result yet
    select * from {{ ref('stg_ingest__source_files') }}
    where testbed is not null

),

testbeds_unioned as (

    select
        testbed,
        nodes,
        vsan_version,
        architecture,
        storage
    from int_workload_results_labelled
    union all
    select
        testbed,
        cast(null as integer) as nodes,
        cast(null as varchar) as vsan_version,
        architecture,
        cast(null as varchar) as storage
    from int_capacity_snapshots_labelled
    union all
    select distinct
        testbed,
        cast(null as integer) as nodes,
        cast(null as varchar) as vsan_version,
        cast(null as varchar) as architecture,
        cast(null as varchar) as storage
    from stg_ingest__source_files

),

testbeds_described as (

    -- a testbed keeps one node count and vSAN version in practice; when
    -- its results disagree the largest and the latest are shown
    select
        {{ testbed_id('testbed') }} as testbed_id,
        testbed,
        max(nodes) as nodes,
        max(vsan_version) as vsan_version,
        max(architecture) as architecture,
        max(storage) as storage,
        false as is_unknown

    from testbeds_unioned
    group by testbed

),

unknown_member as (

    select
        '-1' as testbed_id,
        'unknown' as testbed,
        cast(null as integer) as nodes,
        cast(null as varchar) as vsan_version,
        cast(null as varchar) as architecture,
        cast(null as varchar) as storage,
        true as is_unknown

),

testbeds_with_unknown as (

    select * from testbeds_described
    union all
    select * from unknown_member

)

select * from testbeds_with_unknown
