{#- One row per point of the RA comparison chart: testbed x block size x
    working set x profile x read mix, measured (mean of the user's results;
    issue 18 will stop averaging several results into one point) or
    published (the documents' IOPS and average latency figures side by
    side, as in the Micron vSAN RA). A published figure without a block
    size applies to every block size. -#}
with

fct_workload_results as (

    select * from {{ ref('fct_workload_results') }}

),

published_results as (

    select * from {{ ref('published_results') }}
    where
        metric in ('iops', 'avg_latency_ms')
        and read_pct is not null

),

testbeds_with_iops_figures as (

    select distinct testbed from published_results
    where metric = 'iops'

),

measured_points as (

    select
        'measured' as origin,
        testbed,
        block_size_bytes,
        working_set,
        profile,
        read_pct,
        avg(iops) as iops,
        avg(avg_latency_ms) as avg_latency_ms,
        count(*) as figure_count

    from fct_workload_results
    group by testbed, block_size_bytes, working_set, profile, read_pct

),

published_points as (

    select
        'published' as origin,
        testbed,
        block_size_bytes,
        working_set,
        profile,
        read_pct,
        avg(value) filter (where metric = 'iops') as iops,
        avg(value) filter (where metric = 'avg_latency_ms') as avg_latency_ms,
        count(*) as figure_count

    from published_results
    group by testbed, block_size_bytes, working_set, profile, read_pct

),

points_unioned as (

    select * from measured_points
    union all
    -- a document's latency figures are drawn only beside its IOPS bars
    select published_points.* from published_points
    inner join testbeds_with_iops_figures
        on published_points.testbed = testbeds_with_iops_figures.testbed

)

select * from points_unioned
