-- transport_cpu_efficiency's gain, 100 * (rdma IOPS per CPU - tcp IOPS per
-- CPU) / tcp IOPS per CPU, recomputed from the published IOPS and CPU load
-- of one table reproduces the derived gains (Samsung Table 3: write
-- 328,966 / 0.65 vs 345,707 / 0.47 = +45.34%).
with

{{ import_ctes(['published_results']) }},

efficiency_gains as (

    select * from published_results
    where metric = 'rdma_efficiency_gain_pct'

),

iops_and_cpu_by_transport as (

    select
        source_document,
        table_or_figure,
        testbed,
        read_pct,
        random_pct,
        block_size_bytes,
        max(value) filter (
            where metric = 'iops' and transport = 'tcp'
        ) as tcp_iops,
        max(value) filter (
            where metric = 'iops' and transport = 'rdma'
        ) as rdma_iops,
        max(value) filter (
            where metric = 'cpu_load_avg' and transport = 'tcp'
        ) as tcp_cpu_load,
        max(value) filter (
            where metric = 'cpu_load_avg' and transport = 'rdma'
        ) as rdma_cpu_load

    from published_results
    where metric in ('iops', 'cpu_load_avg')
    group by all
    having count(*) filter (where metric = 'cpu_load_avg') = 2

),

gains_recomputed as (

    select
        efficiency_gains.figure_id,
        efficiency_gains.value,
        round(
            {{ pct_change(
                'iops_and_cpu_by_transport.rdma_iops / iops_and_cpu_by_transport.rdma_cpu_load',
                'iops_and_cpu_by_transport.tcp_iops / iops_and_cpu_by_transport.tcp_cpu_load'
            ) }},
            2
        ) as rdma_efficiency_gain_pct

    from efficiency_gains
    left join iops_and_cpu_by_transport
        on
            efficiency_gains.source_document
            = iops_and_cpu_by_transport.source_document
            and efficiency_gains.testbed = iops_and_cpu_by_transport.testbed
            and efficiency_gains.read_pct
            is not distinct from iops_and_cpu_by_transport.read_pct
            and efficiency_gains.random_pct
            is not distinct from iops_and_cpu_by_transport.random_pct
            and efficiency_gains.block_size_bytes
            is not distinct from iops_and_cpu_by_transport.block_size_bytes

)

select * from gains_recomputed
where
    rdma_efficiency_gain_pct is null
    or abs(rdma_efficiency_gain_pct - value) > 0.005
